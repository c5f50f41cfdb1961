import type { StoryRecord } from '../../stories/application/ports';
import { projectKey, requireStories, resolvePathTag, tagNotFound, tagStoriesPage } from './tag-support';
import type { TagsStore } from './tags-store';

export interface TagStoriesCommand {
  projectId: number;
  tag: string;
  page: number;
  pageSize: number;
}

export type AddTagStory = (
  command: TagStoriesCommand & { storyId: number },
) => Promise<{ stories: StoryRecord[]; total: number }>;

/** `POST P/tags/{tag}/stories`: puts the tag on one story (a no-op when it is there); answers the tag's stories. */
export function makeAddTagStory(store: TagsStore): AddTagStory {
  return async (command) => {
    const projectId = projectKey(command.projectId);
    return store.transaction(async (tx) => {
      const tag = await resolvePathTag(tx, projectId, command.tag);
      if (!(await tx.tags.lock(projectId, tag.id))) throw tagNotFound();
      const ids = await requireStories(tx, projectId, [command.storyId]);
      await tx.tags.linkStories(projectId, tag.id, ids);
      return tagStoriesPage(tx, projectId, tag.id, command);
    });
  };
}
