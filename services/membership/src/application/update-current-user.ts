import { DomainError } from '@flowboard/service-kit';
import { parseUserChanges } from '../domain/user';
import type { Database, User } from './ports';

/**
 * PUT /me (docs/compat.md §5.1): `name`, `userName`, `email`, `bio`; a clash is 409 naming the field. Answers
 * the hashes of the user's keys too, so the gateway can drop the user it cached for each of them.
 */
export function createUpdateCurrentUser(deps: { db: Database }) {
  return async (
    callerId: number,
    input: { name?: string; userName?: string; email?: string; bio?: string },
  ): Promise<{ user: User; apiKeyHashes: string[] }> => {
    const changes = parseUserChanges(input);
    return deps.db.transaction(async (tx) => {
      const user = await tx.users.update(callerId, changes);
      if (!user) throw new DomainError('Unauthenticated', 'Unknown caller');
      return { user, apiKeyHashes: await tx.apiKeys.listHashes(callerId) };
    });
  };
}
