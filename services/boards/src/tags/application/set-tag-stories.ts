import type { AddTagStory, TagStoriesCommand } from './add-tag-story';
import { projectKey, requireStories, resolvePathTag, tagNotFound, tagStoriesPage } from './tag-support';
import type { TagsStore } from './tags-store';

export type SetTagStories = (
  command: TagStoriesCommand & { storyIds: readonly number[] },
) => ReturnType<AddTagStory>;

/**
 * `PUT P/tags/{tag}/stories`: the tag comes off every story and goes on the given ones, in one transaction under
 * the tag row lock (concurrent replaces of one tag queue up); any unknown story → 400 and nothing changes.
 */
export function makeSetTagStories(store: TagsStore): SetTagStories {
  return async (command) => {
    const projectId = projectKey(command.projectId);
    return store.transaction(async (tx) => {
      const tag = await resolvePathTag(tx, projectId, command.tag);
      if (!(await tx.tags.lock(projectId, tag.id))) throw tagNotFound();
      const ids = await requireStories(tx, projectId, command.storyIds);
      await tx.tags.replaceTagStories(projectId, tag.id, ids);
      return tagStoriesPage(tx, projectId, tag.id, command);
    });
  };
}
