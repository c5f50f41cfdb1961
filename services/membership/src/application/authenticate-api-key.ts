import { DomainError } from '@flowboard/service-kit';
import { hashApiKey, isWellFormedApiKey, normalizeApiKey } from '../domain/secrets';
import type { Database, User } from './ports';

/** Resolves an API key to its user: one indexed lookup by the key's hash. */
export function createAuthenticateApiKey(deps: { db: Database }) {
  return async (rawKey: string): Promise<User> => {
    const key = normalizeApiKey(rawKey);
    // A malformed key cannot exist; answer without touching the database.
    const user = isWellFormedApiKey(key)
      ? await deps.db.repos.users.findByApiKeyHash(hashApiKey(key))
      : undefined;
    if (!user) throw new DomainError('Unauthenticated', 'Invalid API key');
    return user;
  };
}
