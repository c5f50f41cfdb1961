import { requirePositiveId } from '../../shared/domain/ids';
import { DEFAULT_PHASES } from '../domain/board';
import type { BoardStore } from './ports';

export type CreateBoard<Phase> = (projectId: number) => Promise<Phase[]>;

/**
 * Creates a project's board with the default phases. Idempotent: only the call that actually inserted the board
 * row adds phases, so concurrent or repeated calls (retries, a replayed event) never create a second set; every
 * call returns the board's phases by position. A concurrent caller waits on the row's unique index until the
 * inserting transaction commits, and its next statement then sees the phases.
 */
export function makeCreateBoard<Phase>(store: BoardStore<Phase>): CreateBoard<Phase> {
  return async (rawProjectId) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    return store.transaction(async (tx) => {
      if (await tx.boards.insertIfAbsent(projectId)) await tx.phases.insertMany(projectId, DEFAULT_PHASES);
      return tx.phases.listByProject(projectId);
    });
  };
}
