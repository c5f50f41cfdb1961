import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/ids';
import type { BoardsStore, PhaseRecord } from './ports';

export type ListPhases = (projectId: number) => Promise<PhaseRecord[]>;

/** A board's phases by position; a board always has at least Backlog and Archive, so none means no board. */
export function makeListPhases(store: BoardsStore): ListPhases {
  return async (rawProjectId) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    const phases = await store.phases.listByProject(projectId);
    if (phases.length === 0) throw new DomainError('NotFound', 'Board not found');
    return phases;
  };
}
