import { DomainError } from '@flowboard/service-kit';
import { parseApiKeyScope, type ApiKeyScopeInput } from '../domain/api-key';
import { apiKeyHint, generateApiKey, hashApiKey } from '../domain/secrets';
import type { ApiKey, Database } from './ports';

const keyNotFound = () => new DomainError('NotFound', 'API key not found');

/**
 * `/me/apikeys` (docs/compat.md §6): the caller's own keys only; the key itself is shown once, at creation. A key
 * may be named, expire, be read-only and be limited to some projects and groups of operations (README "Scoped API
 * keys"); that it gives no more than the key asking for it is the gateway's check, which knows the caller's key.
 */
export function createApiKeyUseCases(deps: { db: Database; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  return {
    list: (callerId: number): Promise<ApiKey[]> => db.repos.apiKeys.listByUser(callerId),

    async create(callerId: number, input: ApiKeyScopeInput): Promise<{ apiKey: ApiKey; key: string }> {
      const scope = parseApiKeyScope(input, now());
      if (scope.projectIds) {
        // A key for a project its user is no member of would only ever answer 404: refuse it while it is made.
        const reachable = new Set((await db.repos.projects.listForUser(callerId)).map((p) => p.id));
        const unknown = scope.projectIds.filter((id) => !reachable.has(id));
        if (unknown.length) {
          throw new DomainError(
            'InvalidArgument',
            `'projects' names projects you are not a member of: ${unknown.join(', ')}.`,
            { problem: 'invalid-field' },
          );
        }
      }
      const key = generateApiKey();
      const apiKey = await db.repos.apiKeys.insert({
        userId: callerId,
        keyHash: hashApiKey(key),
        hint: apiKeyHint(key),
        scope,
      });
      return { apiKey, key };
    },

    /** Answers the deleted key's hash, so the gateway can drop its cached verification at once. */
    async delete(callerId: number, apiKeyId: number): Promise<{ keyHash: string }> {
      const keyHash = apiKeyId > 0 ? await db.repos.apiKeys.deleteForUser(apiKeyId, callerId) : undefined;
      if (!keyHash) throw keyNotFound();
      return { keyHash };
    },

    /** The gateways' batched "last used" times; a malformed entry is dropped rather than failing the batch. */
    async recordUses(uses: ReadonlyArray<{ id: number; usedAt: Date }>): Promise<void> {
      const valid = uses.filter((u) => u.id > 0 && !Number.isNaN(u.usedAt.getTime()));
      await db.repos.apiKeys.recordUses(valid);
    },
  };
}
