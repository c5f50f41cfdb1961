import type { Outbox } from '@flowboard/events';
import { publishBoardChange } from '../../shared/application/resource-events';
import { toPhaseMessage } from './phase-message';
import type { PhaseRecord } from './ports';

export interface PhaseChanges {
  projectId: number;
  actorId: number;
  /** Each phase's index before the write (`indexesOf`, taken before writing: records may be updated in place). */
  before: ReadonlyMap<number, number>;
  /** The board's phases after the write (empty when no other phase can have moved). */
  after: readonly PhaseRecord[];
  /** The phase the write was about, with its event (for a deletion, the phase as it was). */
  changed?: { type: 'phase.created' | 'phase.updated' | 'phase.deleted'; phase: PhaseRecord };
}

/** Each phase's index by its id. */
export const indexesOf = (phases: readonly PhaseRecord[]): ReadonlyMap<number, number> =>
  new Map(phases.map((p) => [p.id, p.position]));

/**
 * A phase write's events: the changed phase's own, then `phase.updated` for every other phase whose index it
 * shifted (an insert, a move or a deletion shifts the phases in between; a reorder moves many), in board order. A
 * subscriber keeping the board's columns in order needs no second read.
 */
export async function publishPhaseChanges(outbox: Outbox, changes: PhaseChanges): Promise<void> {
  const { projectId, actorId, before, after, changed } = changes;
  const publish = (type: NonNullable<PhaseChanges['changed']>['type'], phase: PhaseRecord) =>
    publishBoardChange(outbox, { projectId, actorId, type, id: phase.id, resource: toPhaseMessage(phase) });
  if (changed) await publish(changed.type, changed.phase);
  for (const phase of after) {
    if (phase.id === changed?.phase.id) continue;
    const was = before.get(phase.id);
    if (was !== undefined && was !== phase.position) await publish('phase.updated', phase);
  }
}
