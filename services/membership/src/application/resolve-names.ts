import type { Database, User } from './ports';
import { createBatchGetUsers } from './batch-get-users';

export interface ResolvedNames {
  /** '' when the project is gone (an event can be rendered after its project was deleted). */
  projectName: string;
  users: User[];
}

/**
 * The names a change event's payload shows (webhooks): its project's and its users'. No caller and no access
 * check, like BatchGetUsers: the webhooks service renders events after the fact, when the actor may have left.
 */
export function createResolveNames(deps: { db: Database }) {
  const batchGetUsers = createBatchGetUsers(deps);
  return async (projectId: number, userIds: number[]): Promise<ResolvedNames> => {
    const [project, users] = await Promise.all([
      Number.isSafeInteger(projectId) && projectId > 0
        ? deps.db.repos.projects.findById(projectId)
        : undefined,
      batchGetUsers(userIds),
    ]);
    return { projectName: project?.name ?? '', users };
  };
}
