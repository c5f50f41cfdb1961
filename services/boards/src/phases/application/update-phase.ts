import { DomainError, parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { requirePositiveId } from '../../shared/domain/ids';
import { moveIndex, parsePhaseDescription, parsePhaseName, parseWipLimit } from '../domain/phase-order';
import { phaseNotFound } from './get-phase';
import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import { indexesOf, publishPhaseChanges } from './phase-events';
import type { PhasesStore } from './phases-store';
import type { PhaseRecord } from './ports';

/** A partial update: only the properties present change. */
export interface UpdatePhaseCommand {
  projectId: number;
  phaseId: number;
  name?: string;
  description?: string;
  index?: number;
  /** 0 = remove the limit. */
  limit?: number;
  /** 0 or undefined = unconditional; else the update happens only if the phase is at this version. */
  expectedVersion?: number;
  /** The caller (from call metadata): the actor of the `phase.*` events. */
  actorId: number;
}

export type UpdatePhase = (command: UpdatePhaseCommand) => Promise<PhaseRecord>;

/** Renames, re-describes, re-limits and/or moves a phase; a move shifts the phases in between. */
export function makeUpdatePhase(store: PhasesStore, signal: OutboxSignal = noSignal): UpdatePhase {
  return async (command) => {
    const projectId = requirePositiveId('project_id', command.projectId);
    if (!Number.isSafeInteger(command.phaseId) || command.phaseId <= 0) throw phaseNotFound();
    const name = command.name === undefined ? undefined : parsePhaseName(command.name);
    const description =
      command.description === undefined ? undefined : parsePhaseDescription(command.description);
    const wipLimit = command.limit === undefined ? undefined : parseWipLimit(command.limit);
    const expectedVersion = parseExpectedVersion(command.expectedVersion);
    const updated = await store.transaction(async (tx) => {
      // Whatever changes a phase's version (create, move, update, delete, reorder) holds the board row lock,
      // so the version read under it stays until the commit.
      if (!(await tx.boards.lock(projectId))) throw new DomainError('NotFound', 'Board not found');
      const phases = await tx.phases.listByProject(projectId);
      const phase = phases.find((p) => p.id === command.phaseId);
      if (!phase) throw phaseNotFound();
      requireVersion('Phase', phase.id, phase.version, expectedVersion);
      const before = indexesOf(phases);
      const position =
        command.index === undefined
          ? phase.position
          : moveIndex(phase.position, command.index, phases.length - 1);
      const written = await tx.phases.update(projectId, phase.id, {
        name: name ?? phase.name,
        description: description ?? phase.description,
        wipLimit: wipLimit === undefined ? phase.wipLimit : wipLimit,
        position,
      });
      await publishPhaseChanges(tx.outbox, {
        projectId,
        actorId: command.actorId,
        before,
        after: position === before.get(phase.id) ? [] : await tx.phases.listByProject(projectId),
        changed: { type: 'phase.updated', phase: written },
      });
      return written;
    });
    signal();
    return updated;
  };
}
