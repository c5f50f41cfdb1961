import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../../shared/domain/ids';
import { validatePhaseOrder } from '../domain/phase-order';
import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import { indexesOf, publishPhaseChanges } from './phase-events';
import type { PhasesStore } from './phases-store';
import type { PhaseRecord } from './ports';

export type ReorderPhases = (
  projectId: number,
  phaseIds: readonly number[],
  /** The caller (from call metadata): the actor of the `phase.updated` events. */
  actorId: number,
) => Promise<PhaseRecord[]>;

/** PUT P/phases: every phase exactly once, Backlog first and Archive last; one transaction. */
export function makeReorderPhases(store: PhasesStore, signal: OutboxSignal = noSignal): ReorderPhases {
  return async (rawProjectId, phaseIds, actorId) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    const reordered = await store.transaction(async (tx) => {
      if (!(await tx.boards.lock(projectId))) throw new DomainError('NotFound', 'Board not found');
      const current = await tx.phases.listByProject(projectId);
      validatePhaseOrder(
        current.map((p) => p.id),
        phaseIds,
      );
      const before = indexesOf(current);
      await tx.phases.reorder(projectId, phaseIds);
      const after = await tx.phases.listByProject(projectId);
      await publishPhaseChanges(tx.outbox, { projectId, actorId, before, after });
      return after;
    });
    signal();
    return reordered;
  };
}
