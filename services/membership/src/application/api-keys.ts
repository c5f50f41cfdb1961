import { DomainError } from '@flowboard/service-kit';
import { apiKeyHint, generateApiKey, hashApiKey } from '../domain/secrets';
import type { ApiKey, Database } from './ports';

const keyNotFound = () => new DomainError('NotFound', 'API key not found');

/**
 * `/me/apikeys` (docs/compat.md §6): the caller's own keys only; the key itself is shown once, at creation.
 */
export function createApiKeyUseCases(deps: { db: Database }) {
  const { db } = deps;
  return {
    list: (callerId: number): Promise<ApiKey[]> => db.repos.apiKeys.listByUser(callerId),

    async create(callerId: number): Promise<{ apiKey: ApiKey; key: string }> {
      const key = generateApiKey();
      const apiKey = await db.repos.apiKeys.insert({
        userId: callerId,
        keyHash: hashApiKey(key),
        hint: apiKeyHint(key),
      });
      return { apiKey, key };
    },

    /** Answers the deleted key's hash, so the gateway can drop its cached verification at once. */
    async delete(callerId: number, apiKeyId: number): Promise<{ keyHash: string }> {
      const keyHash = apiKeyId > 0 ? await db.repos.apiKeys.deleteForUser(apiKeyId, callerId) : undefined;
      if (!keyHash) throw keyNotFound();
      return { keyHash };
    },
  };
}
