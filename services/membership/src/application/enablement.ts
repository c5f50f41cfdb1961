import { DomainError } from '@flowboard/service-kit';
import type { ApiKey, Database, User } from './ports';

/**
 * The operator's switches (docs/compat.md §3.1, §6: "a disabled key or user → 401", "operators can disable
 * keys"). Authentication refuses a key when either it or its user is disabled (`findByApiKeyHash`), so these
 * only flip the flags; they answer the sha256 of every key the change affects, so the gateway can drop its
 * cached verifications before it replies and the change holds from the very next request.
 */
export function createEnablementUseCases(deps: { db: Database }) {
  const { db } = deps;
  return {
    /** Unknown user → NotFound. Answers every key of the user, since each of them now works or not. */
    async setUser(
      userId: number,
      enabled: boolean,
    ): Promise<{ user: User; enabled: boolean; apiKeyHashes: string[] }> {
      if (!(userId > 0)) throw new DomainError('NotFound', 'No such user.');
      return db.transaction(async (tx) => {
        const changed = await tx.users.setEnabled(userId, enabled);
        if (!changed) throw new DomainError('NotFound', 'No such user.');
        return { ...changed, apiKeyHashes: await tx.apiKeys.listHashes(userId) };
      });
    },

    /** Unknown user, unknown key, or a key of another user → NotFound (one answer for all three). */
    async setApiKey(
      userId: number,
      apiKeyId: number,
      enabled: boolean,
    ): Promise<{ apiKey: ApiKey; keyHash: string }> {
      const changed =
        userId > 0 && apiKeyId > 0
          ? await db.repos.apiKeys.setEnabledForUser(apiKeyId, userId, enabled)
          : undefined;
      if (!changed) throw new DomainError('NotFound', 'No such API key for this user.');
      return changed;
    },
  };
}
