import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../../shared/domain/ids';
import { insertionIndex, parsePhaseDescription, parsePhaseName, parseWipLimit } from '../domain/phase-order';
import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import { indexesOf, publishPhaseChanges } from './phase-events';
import type { PhasesStore } from './phases-store';
import type { PhaseRecord } from './ports';

export interface CreatePhaseCommand {
  projectId: number;
  name: string;
  description: string;
  /** undefined = just before Archive. */
  index?: number;
  /** 0 = none. */
  limit: number;
  /** The caller (from call metadata): the actor of the `phase.*` events. */
  actorId: number;
}

export type CreatePhase = (command: CreatePhaseCommand) => Promise<PhaseRecord>;

/** Inserts a phase, shifting the phases at and after its index (Archive included) in one transaction. */
export function makeCreatePhase(store: PhasesStore, signal: OutboxSignal = noSignal): CreatePhase {
  return async (command) => {
    const projectId = requirePositiveId('project_id', command.projectId);
    const name = parsePhaseName(command.name);
    const description = parsePhaseDescription(command.description);
    const wipLimit = parseWipLimit(command.limit);
    const created = await store.transaction(async (tx) => {
      if (!(await tx.boards.lock(projectId))) throw new DomainError('NotFound', 'Board not found');
      const phases = await tx.phases.listByProject(projectId);
      const before = indexesOf(phases);
      const archiveIndex = phases.length - 1;
      const position = insertionIndex(command.index, archiveIndex);
      const phase = await tx.phases.insertAt(projectId, { name, description, position, wipLimit });
      await publishPhaseChanges(tx.outbox, {
        projectId,
        actorId: command.actorId,
        before,
        after: await tx.phases.listByProject(projectId),
        changed: { type: 'phase.created', phase },
      });
      return phase;
    });
    signal();
    return created;
  };
}
