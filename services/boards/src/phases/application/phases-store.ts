import type { Store } from '../../shared/application/store';
import type { StoryRepository } from '../../stories/application/ports';
import type { BoardRepository, PhaseRepository } from './ports';

/** What the phase use cases reach. */
export interface PhasesRepositories {
  /** The board row: created with the default phases, locked while positions shift. */
  boards: BoardRepository;
  phases: PhaseRepository;
  /** A phase's stories: listed and reordered with it, and a phase holding any cannot be deleted. */
  stories: StoryRepository;
}

export type PhasesStore = Store<PhasesRepositories>;
