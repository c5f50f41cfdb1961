import type { BoardRepository } from '../../board/application/ports';
import type { Store } from '../../board/application/store';
import type { StoryHistoryRepository } from '../../history/application/ports';
import type { PhaseRepository } from '../../phases/application/ports';
import type { BoardsOutbox } from '../../shared/application/resource-events';
import type { StoryRepository } from './ports';

/**
 * What the story use cases reach; a create, move or delete writes to several of them in one transaction. A new
 * story's tasks and tags are written by those slices (CreateStory's `NewStoryPart`s), on repositories of their own.
 */
export interface StoriesRepositories {
  /** Numbering (the board's story counter) and the board row lock every move holds. */
  boards: BoardRepository;
  /** Where a story lands, and the status that follows from the phase's position. */
  phases: PhaseRepository;
  stories: StoryRepository;
  /** The milestone and step every create and move opens. */
  history: StoryHistoryRepository;
  /** `boards.story-deleted.v1` and the stories' change events, written in the change's transaction. */
  outbox: BoardsOutbox;
}

export type StoriesStore = Store<StoriesRepositories>;
