import type { Store } from '../../board/application/store';
import type { OutboxSignal } from '../../shared/application/resource-events';
import { makeCreateStory, type CreateStory, type NewStoryPart } from './create-story';
import { makeDeleteStory, type DeleteStory } from './delete-story';
import { makeBatchGetStories, makeGetStory, type BatchGetStories, type GetStory } from './get-story';
import { makeListOwnedStories, type ListOwnedStories } from './list-owned-stories';
import { makeListPhaseStories, type ListPhaseStories } from './list-phase-stories';
import { makeListStories, type ListStories } from './list-stories';
import {
  makeListStoriesById,
  makeListStoryChanges,
  type ListStoriesById,
  type ListStoryChanges,
} from './list-story-pages';
import type { OwnedStoriesReader, StoryPagesReader } from './ports';
import { makeReorderPhaseStories, type ReorderPhaseStories } from './reorder-phase-stories';
import type { StoriesRepositories } from './stories-store';
import { makeUpdateStories, type UpdateStories } from './update-stories';
import { makeUpdateStory, type UpdateStory } from './update-story';

/** What StoriesService serves, and PhasesService's methods about a phase's stories. */
export interface StoriesUseCases {
  createStory: CreateStory;
  getStory: GetStory;
  batchGetStories: BatchGetStories;
  listStories: ListStories;
  updateStory: UpdateStory;
  deleteStory: DeleteStory;
  updateStories: UpdateStories;
  listOwnedStories: ListOwnedStories;
  listStoriesById: ListStoriesById;
  listStoryChanges: ListStoryChanges;
  listPhaseStories: ListPhaseStories;
  reorderPhaseStories: ReorderPhaseStories;
}

export interface StoriesUseCaseOptions<Tx> {
  /** /me/stories reads on the pool. */
  ownedStories: OwnedStoriesReader;
  /** Cursor pages (of the board and of a phase) and updatedSince read on the pool. */
  storyPages: StoryPagesReader;
  /** Called once a write with events commits: the outbox relay publishes them now, not at its next pass. */
  wakeOutbox: OutboxSignal;
  /** What a new story is created with besides its row (its tasks, its tags), in the order of their events. */
  newStoryParts: ReadonlyArray<NewStoryPart<Tx>>;
}

export const storiesUseCases = <Tx extends StoriesRepositories>(
  store: Store<Tx>,
  options: StoriesUseCaseOptions<Tx>,
): StoriesUseCases => ({
  createStory: makeCreateStory(store, options.wakeOutbox, options.newStoryParts),
  getStory: makeGetStory(store),
  batchGetStories: makeBatchGetStories(store),
  listStories: makeListStories(store),
  updateStory: makeUpdateStory(store, options.wakeOutbox),
  deleteStory: makeDeleteStory(store, options.wakeOutbox),
  updateStories: makeUpdateStories(store, options.wakeOutbox),
  listOwnedStories: makeListOwnedStories(options.ownedStories),
  listStoriesById: makeListStoriesById(options.storyPages),
  listStoryChanges: makeListStoryChanges(options.storyPages),
  listPhaseStories: makeListPhaseStories(store, options.storyPages),
  reorderPhaseStories: makeReorderPhaseStories(store),
});
