import type { BoardRepository } from '../../board/application/ports';
import type { Store } from '../../board/application/store';
import type { PhaseRepository } from './ports';

/** What the phase use cases reach. */
export interface PhasesRepositories {
  /** The board row: created with the default phases (board/), locked while positions shift. */
  boards: BoardRepository;
  phases: PhaseRepository;
}

export type PhasesStore = Store<PhasesRepositories>;
