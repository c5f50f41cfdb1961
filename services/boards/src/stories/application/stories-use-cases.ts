import type { OutboxSignal } from '../../shared/application/resource-events';
import { makeBatchGetStoryTags, type BatchGetStoryTags } from '../../tags/application/batch-get-story-tags';
import { makeCreateStory, type CreateStory } from './create-story';
import { makeDeleteStory, type DeleteStory } from './delete-story';
import { makeBatchGetStories, makeGetStory, type BatchGetStories, type GetStory } from './get-story';
import { makeListOwnedStories, type ListOwnedStories } from './list-owned-stories';
import { makeListStories, type ListStories } from './list-stories';
import type { OwnedStoriesReader } from './ports';
import type { StoriesStore } from './stories-store';
import { makeUpdateStories, type UpdateStories } from './update-stories';
import { makeUpdateStory, type UpdateStory } from './update-story';

/** What StoriesService serves. */
export interface StoriesUseCases {
  createStory: CreateStory;
  getStory: GetStory;
  batchGetStories: BatchGetStories;
  listStories: ListStories;
  updateStory: UpdateStory;
  deleteStory: DeleteStory;
  updateStories: UpdateStories;
  listOwnedStories: ListOwnedStories;
  /** ListStories with include_tags answers the page's tags too: the tags slice's batch read. */
  batchGetStoryTags: BatchGetStoryTags;
}

export interface StoriesUseCaseOptions {
  /** /me/stories reads on the pool. */
  ownedStories: OwnedStoriesReader;
  /** Called once a write with events commits: the outbox relay publishes them now, not at its next pass. */
  wakeOutbox: OutboxSignal;
}

export const storiesUseCases = (store: StoriesStore, options: StoriesUseCaseOptions): StoriesUseCases => ({
  createStory: makeCreateStory(store, options.wakeOutbox),
  getStory: makeGetStory(store),
  batchGetStories: makeBatchGetStories(store),
  listStories: makeListStories(store),
  updateStory: makeUpdateStory(store, options.wakeOutbox),
  deleteStory: makeDeleteStory(store, options.wakeOutbox),
  updateStories: makeUpdateStories(store, options.wakeOutbox),
  listOwnedStories: makeListOwnedStories(options.ownedStories),
  batchGetStoryTags: makeBatchGetStoryTags(store),
});
