import { DomainError } from '@flowboard/service-kit';
import type { Database, User } from './ports';

/** A response embeds at most a page of users; anything far above that is a bug in the caller. */
export const MAX_BATCH = 1000;

/** Resolves many user ids with one query; unknown ids are left out. */
export function createBatchGetUsers(deps: { db: Database }) {
  return async (ids: number[]): Promise<User[]> => {
    const unique = [...new Set(ids.filter((id) => Number.isSafeInteger(id) && id > 0))];
    if (unique.length === 0) return [];
    if (unique.length > MAX_BATCH) {
      throw new DomainError('InvalidArgument', `At most ${MAX_BATCH} ids per call`, {
        problem: 'invalid-parameter',
      });
    }
    return deps.db.repos.users.findByIds(unique);
  };
}
