import { DomainError } from '@flowboard/service-kit';
import type { Database, User } from './ports';

export function createGetCurrentUser(deps: { db: Database }) {
  return async (callerId: number): Promise<User> => {
    const user = await deps.db.repos.users.findById(callerId);
    // The gateway only sends authenticated callers; an unknown one is not a valid identity.
    if (!user) throw new DomainError('Unauthenticated', 'Unknown caller');
    return user;
  };
}
