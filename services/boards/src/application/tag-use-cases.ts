import { makeAddTagStory } from './add-tag-story';
import { makeBatchGetStoryTags } from './batch-get-story-tags';
import { makeBatchGetTagStories } from './batch-get-tag-stories';
import { makeCreateTag } from './create-tag';
import { makeDeleteTag } from './delete-tag';
import { makeGetTag } from './get-tag';
import { makeListStoryTags } from './list-story-tags';
import { makeListTagStories } from './list-tag-stories';
import { makeListTags } from './list-tags';
import type { BoardsStore } from './ports';
import { makeRemoveTagStory } from './remove-tag-story';
import { makeSetTagStories } from './set-tag-stories';
import { makeAddStoryTag, makeSetStoryTags } from './set-story-tags';
import { makeUpdateTag } from './update-tag';

/** The tag use cases over one store (composition-root helper, so app.ts grows by one line). */
export const tagUseCases = (store: BoardsStore) => ({
  listTags: makeListTags(store),
  getTag: makeGetTag(store),
  createTag: makeCreateTag(store),
  updateTag: makeUpdateTag(store),
  deleteTag: makeDeleteTag(store),
  batchGetTagStories: makeBatchGetTagStories(store),
  listTagStories: makeListTagStories(store),
  addTagStory: makeAddTagStory(store),
  setTagStories: makeSetTagStories(store),
  removeTagStory: makeRemoveTagStory(store),
  listStoryTags: makeListStoryTags(store),
  addStoryTag: makeAddStoryTag(store),
  setStoryTags: makeSetStoryTags(store),
  batchGetStoryTags: makeBatchGetStoryTags(store),
});
