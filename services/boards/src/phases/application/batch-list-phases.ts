import { batchProjectIds } from '../../shared/application/batch-ids';
import type { PhasesStore } from './phases-store';
import type { PhaseRecord } from './ports';

export type BatchListPhases = (projectIds: readonly number[]) => Promise<Map<number, PhaseRecord[]>>;

/**
 * The phases of several boards in one query (`GET /projects?with=phases` asks for a whole page of projects):
 * every requested project is in the answer, in the order asked, duplicates dropped; one without a board has
 * no phases (the gateway has already checked that the caller may read each project).
 */
export function makeBatchListPhases(store: PhasesStore): BatchListPhases {
  return async (rawIds) => {
    const ids = batchProjectIds(rawIds);
    const found = ids.length > 0 ? await store.phases.listByProjects(ids) : new Map<number, PhaseRecord[]>();
    return new Map(ids.map((id) => [id, found.get(id) ?? []]));
  };
}
