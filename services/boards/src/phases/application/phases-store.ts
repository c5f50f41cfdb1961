import type { Outbox } from '@flowboard/events';
import type { BoardRepository } from '../../board/application/ports';
import type { Store } from '../../board/application/store';
import type { PhaseRepository } from './ports';

/** What the phase use cases reach. */
export interface PhasesRepositories {
  /** The board row: created with the default phases (board/), locked while positions shift. */
  boards: BoardRepository;
  phases: PhaseRepository;
  /** `phase.*` events, written in the change's transaction. */
  outbox: Outbox;
}

export type PhasesStore = Store<PhasesRepositories>;
