import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import type { StoryPagesReader } from '../../stories/application/ports';
import { makeAddTagStory, type AddTagStory } from './add-tag-story';
import { makeBatchGetStoryTags, type BatchGetStoryTags } from './batch-get-story-tags';
import { makeBatchGetTagStories, type BatchGetTagStories } from './batch-get-tag-stories';
import { makeCreateTag, type CreateTag } from './create-tag';
import { makeDeleteTag, type DeleteTag } from './delete-tag';
import { makeGetTag, type GetTag } from './get-tag';
import { makeListStoryTags, type ListStoryTags } from './list-story-tags';
import { makeListTagStories, type ListTagStories } from './list-tag-stories';
import { makeListTags, type ListTags } from './list-tags';
import { makeRemoveTagStory, type RemoveTagStory } from './remove-tag-story';
import { makeAddStoryTag, makeSetStoryTags, type AddStoryTag, type SetStoryTags } from './set-story-tags';
import { makeSetTagStories, type SetTagStories } from './set-tag-stories';
import type { TagsStore } from './tags-store';
import { makeUpdateTag, type UpdateTag } from './update-tag';

/** Tags (docs/compat.md §5.5): what TagsService serves. */
export interface TagsUseCases {
  listTags: ListTags;
  getTag: GetTag;
  createTag: CreateTag;
  updateTag: UpdateTag;
  deleteTag: DeleteTag;
  batchGetTagStories: BatchGetTagStories;
  listTagStories: ListTagStories;
  addTagStory: AddTagStory;
  setTagStories: SetTagStories;
  /** Both RemoveTagStory and RemoveStoryTag: the link is the same whichever side names it. */
  removeTagStory: RemoveTagStory;
  listStoryTags: ListStoryTags;
  addStoryTag: AddStoryTag;
  setStoryTags: SetStoryTags;
  batchGetStoryTags: BatchGetStoryTags;
}

export interface TagsUseCaseOptions {
  /** A tag's stories by keyset, read on the pool. */
  storyPages: StoryPagesReader;
  /** Called once a write with events commits (the relay publishes them now). */
  wakeOutbox?: OutboxSignal;
}

export const tagsUseCases = (
  store: TagsStore,
  { storyPages, wakeOutbox = noSignal }: TagsUseCaseOptions,
): TagsUseCases => ({
  listTags: makeListTags(store),
  getTag: makeGetTag(store),
  createTag: makeCreateTag(store, wakeOutbox),
  updateTag: makeUpdateTag(store, wakeOutbox),
  deleteTag: makeDeleteTag(store, wakeOutbox),
  batchGetTagStories: makeBatchGetTagStories(store),
  listTagStories: makeListTagStories(store, storyPages),
  addTagStory: makeAddTagStory(store, wakeOutbox),
  setTagStories: makeSetTagStories(store, wakeOutbox),
  removeTagStory: makeRemoveTagStory(store, wakeOutbox),
  listStoryTags: makeListStoryTags(store),
  addStoryTag: makeAddStoryTag(store, wakeOutbox),
  setStoryTags: makeSetStoryTags(store, wakeOutbox),
  batchGetStoryTags: makeBatchGetStoryTags(store),
});
