import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/ids';
import { MAX_BATCH_PROJECTS } from './batch-get-project-metrics';
import type { BoardsStore, PhaseRecord } from './ports';

export type BatchListPhases = (projectIds: readonly number[]) => Promise<Map<number, PhaseRecord[]>>;

/**
 * The phases of several boards in one query (`GET /projects?with=phases` asks for a whole page of projects):
 * every requested project is in the answer, in the order asked, duplicates dropped; one without a board has
 * no phases (the gateway has already checked that the caller may read each project).
 */
export function makeBatchListPhases(store: BoardsStore): BatchListPhases {
  return async (rawIds) => {
    const ids = [...new Set(rawIds.map((id) => requirePositiveId('project_ids', id)))];
    if (ids.length > MAX_BATCH_PROJECTS)
      throw new DomainError('InvalidArgument', `At most ${MAX_BATCH_PROJECTS} projects per batch.`, {
        problem: 'invalid-field',
      });
    const found = ids.length > 0 ? await store.phases.listByProjects(ids) : new Map<number, PhaseRecord[]>();
    return new Map(ids.map((id) => [id, found.get(id) ?? []]));
  };
}
