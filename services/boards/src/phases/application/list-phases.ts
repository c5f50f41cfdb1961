import { matchesFilter } from '@flowboard/filter';
import { DomainError } from '@flowboard/service-kit';
import { parseFilter, PHASE_FILTER_PROPERTIES } from '../../shared/domain/filter';
import { requirePositiveId } from '../../shared/domain/ids';
import type { PhasesStore } from './phases-store';
import type { PhaseRecord } from './ports';

export type ListPhases = (projectId: number, where?: string) => Promise<PhaseRecord[]>;

/**
 * A board's phases by position, narrowed by `where` over `name` (docs/compat.md §4.2; a board has a handful
 * of phases, so matching is in memory). A board always has at least Backlog and Archive, so none means no
 * board.
 */
export function makeListPhases(store: PhasesStore): ListPhases {
  return async (rawProjectId, where = '') => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    const filter = parseFilter(where, PHASE_FILTER_PROPERTIES);
    const phases = await store.phases.listByProject(projectId);
    if (phases.length === 0) throw new DomainError('NotFound', 'Board not found');
    return filter ? phases.filter((p) => matchesFilter(filter, () => p.name)) : phases;
  };
}
