import type { Outbox } from '@flowboard/events';
import type { StoryHistoryRepository } from '../../history/application/ports';
import type { BoardRepository, PhaseRepository } from '../../phases/application/ports';
import type { Store } from '../../shared/application/store';
import type { TagRepository } from '../../tags/application/ports';
import type { TaskRepository } from '../../tasks/application/ports';
import type { StoryRepository } from './ports';

/** What the story use cases reach; a create, move or delete writes to several of them in one transaction. */
export interface StoriesRepositories {
  /** Numbering (the board's story counter) and the board row lock every move holds. */
  boards: BoardRepository;
  /** Where a story lands, and the status that follows from the phase's position. */
  phases: PhaseRepository;
  stories: StoryRepository;
  /** The milestone and step every create and move opens. */
  history: StoryHistoryRepository;
  /** The tasks given with a new story. */
  tasks: TaskRepository;
  /** The tags given with a new story (unknown names are created). */
  tags: TagRepository;
  /** `boards.story-deleted.v1` and the stories' change events, written in the change's transaction. */
  outbox: Outbox;
}

export type StoriesStore = Store<StoriesRepositories>;
