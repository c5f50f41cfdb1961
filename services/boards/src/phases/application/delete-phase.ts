import { DomainError, parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { requirePositiveId } from '../../shared/domain/ids';
import { phaseNotFound } from './get-phase';
import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import { indexesOf, publishPhaseChanges } from './phase-events';
import type { PhasesStore } from './phases-store';

export interface DeletePhaseCommand {
  projectId: number;
  phaseId: number;
  /** 0 or undefined = unconditional; else the phase goes only if it is at this version. */
  expectedVersion?: number;
  /** The caller (from call metadata): the actor of the `phase.*` events. */
  actorId: number;
}

export type DeletePhase = (command: DeletePhaseCommand) => Promise<void>;

/**
 * Backlog and Archive cannot be deleted (400); a phase holding stories is refused (409), nothing is lost. A
 * conditional delete checks the version first (412).
 */
export function makeDeletePhase(store: PhasesStore, signal: OutboxSignal = noSignal): DeletePhase {
  return async ({ projectId: rawProjectId, phaseId, expectedVersion: rawVersion, actorId }) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    if (!Number.isSafeInteger(phaseId) || phaseId <= 0) throw phaseNotFound();
    const expectedVersion = parseExpectedVersion(rawVersion);
    await store.transaction(async (tx) => {
      if (!(await tx.boards.lock(projectId))) throw phaseNotFound();
      const phases = await tx.phases.listByProject(projectId);
      const phase = phases.find((p) => p.id === phaseId);
      if (!phase) throw phaseNotFound();
      requireVersion('Phase', phase.id, phase.version, expectedVersion);
      if (phase.position === 0 || phase.position === phases.length - 1) {
        throw new DomainError(
          'InvalidArgument',
          `The ${phase.position === 0 ? 'Backlog' : 'Archive'} phase cannot be deleted.`,
          { problem: 'invalid-state' },
        );
      }
      if (await tx.phases.holdsStories(projectId, phaseId)) {
        throw new DomainError('Conflict', 'The phase still holds stories; move them first.');
      }
      const before = indexesOf(phases);
      await tx.phases.delete(projectId, phaseId);
      await publishPhaseChanges(tx.outbox, {
        projectId,
        actorId,
        before,
        after: await tx.phases.listByProject(projectId),
        changed: { type: 'phase.deleted', phase },
      });
    });
    signal();
  };
}
