import { DomainError } from '@flowboard/service-kit';
import { isScoped } from '../domain/api-key';
import { hashApiKey, isWellFormedApiKey, normalizeApiKey } from '../domain/secrets';
import type { ApiKey, Database, User } from './ports';

/**
 * Resolves an API key to its user and the key's own record: one indexed lookup by the key's hash. A caller that
 * does not enforce scopes (a gateway older than them, during a rolling upgrade) is refused a scoped key: it would
 * let the key act as its whole user.
 */
export function createAuthenticateApiKey(deps: { db: Database }) {
  return async (rawKey: string, callerEnforcesScopes: boolean): Promise<{ user: User; apiKey: ApiKey }> => {
    const key = normalizeApiKey(rawKey);
    // A malformed key cannot exist; answer without touching the database.
    const found = isWellFormedApiKey(key)
      ? await deps.db.repos.users.findByApiKeyHash(hashApiKey(key))
      : undefined;
    if (!found) throw new DomainError('Unauthenticated', 'Invalid API key');
    if (!callerEnforcesScopes && isScoped(found.apiKey)) {
      throw new DomainError(
        'Unauthenticated',
        'This API key has scopes, which this gateway does not enforce.',
      );
    }
    return found;
  };
}
