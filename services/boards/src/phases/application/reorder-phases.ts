import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../../shared/domain/ids';
import { validatePhaseOrder } from '../domain/phase-order';
import type { PhasesStore } from './phases-store';
import type { PhaseRecord } from './ports';

export type ReorderPhases = (projectId: number, phaseIds: readonly number[]) => Promise<PhaseRecord[]>;

/** PUT P/phases: every phase exactly once, Backlog first and Archive last; one transaction. */
export function makeReorderPhases(store: PhasesStore): ReorderPhases {
  return async (rawProjectId, phaseIds) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    return store.transaction(async (tx) => {
      if (!(await tx.boards.lock(projectId))) throw new DomainError('NotFound', 'Board not found');
      const current = (await tx.phases.listByProject(projectId)).map((p) => p.id);
      validatePhaseOrder(current, phaseIds);
      await tx.phases.reorder(projectId, phaseIds);
      return tx.phases.listByProject(projectId);
    });
  };
}
