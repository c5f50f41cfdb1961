import { pageWindow } from '../../shared/application/list-window';
import { storyKey, storyNotFound } from '../../stories/application/story-children';
import { parseTagRef } from '../domain/tags';
import type { StoryTagsPage } from './list-story-tags';
import { resolveTagRefs } from './tag-support';
import type { TagsStore } from './tags-store';

export interface StoryTagsCommand {
  projectId: number;
  storyId: number;
  /** Wire references: `{id}` or `{name}` (an unknown name creates the tag). */
  tags: ReadonlyArray<{ id: number; name: string }>;
  page: number;
  pageSize: number;
}

export type SetStoryTags = (command: StoryTagsCommand) => Promise<StoryTagsPage>;
export type AddStoryTag = SetStoryTags;

/**
 * `POST S/tags` (`replace` false: add one) and `PUT S/tags` (`replace` true: exactly the given set). Runs under the
 * story row lock, so tag writes on one story queue up; tags named but unknown are created in the same
 * transaction, so a failed write (an unknown id → 400) leaves no new tag behind. Answers the page of the story's tags.
 */
function makeStoryTagsWrite(store: TagsStore, replace: boolean): SetStoryTags {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const refs = command.tags.map((t) => parseTagRef(t, 'tag'));
    const { offset, limit } = pageWindow(command.page, command.pageSize);
    return store.transaction(async (tx) => {
      if (!(await tx.tags.lockStory(key.projectId, key.storyId))) throw storyNotFound();
      const ids = await resolveTagRefs(tx, key.projectId, refs, 'tag');
      if (replace) await tx.tags.replaceStoryTags(key.projectId, key.storyId, ids);
      else await tx.tags.link(key.projectId, key.storyId, ids);
      return tx.tags.listForStory(key.projectId, key.storyId, offset, limit);
    });
  };
}

export const makeSetStoryTags = (store: TagsStore): SetStoryTags => makeStoryTagsWrite(store, true);
export const makeAddStoryTag = (store: TagsStore): AddStoryTag => makeStoryTagsWrite(store, false);
