import { requirePositiveId } from '../../shared/domain/ids';
import type { BoardRepository } from './ports';
import type { Store } from './store';

export type DeleteProjectBoard = (projectId: number, eventId: string) => Promise<{ firstTime: boolean }>;

/**
 * Deletes a deleted project's board in one transaction: phases, stories, tags, and every story's tasks,
 * comments, tag links and history (ON DELETE CASCADE). Idempotent: a redelivered event finds nothing left to
 * delete; `firstTime` is false when the project was already recorded as deleted. No story-deleted events:
 * files consumes the project-deleted event itself.
 */
export function makeDeleteProjectBoard(store: Store<{ boards: BoardRepository }>): DeleteProjectBoard {
  return async (rawProjectId, eventId) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    const firstTime = await store.transaction((tx) => tx.boards.deleteProject(projectId, eventId));
    return { firstTime };
  };
}
