import { DomainError } from '@flowboard/service-kit';
import { storyNotFound } from '../../stories/application/story-children';
import { projectKey, resolvePathTag } from './tag-support';
import type { TagsStore } from './tags-store';

export interface RemoveTagStoryCommand {
  projectId: number;
  /** `{tag}` from the path: an id or a name. */
  tag: string;
  storyId: number;
}

export type RemoveTagStory = (command: RemoveTagStoryCommand) => Promise<void>;

/**
 * `DELETE P/tags/{tag}/stories/{id}` and `DELETE S/tags/{tag}`: takes the tag off the story. An unknown tag or
 * story is 404, and so is a story that does not carry the tag (the link is the resource being deleted).
 */
export function makeRemoveTagStory(store: TagsStore): RemoveTagStory {
  return async (command) => {
    const projectId = projectKey(command.projectId);
    const storyId = command.storyId;
    if (!Number.isSafeInteger(storyId) || storyId <= 0 || !(await store.stories.find(projectId, storyId)))
      throw storyNotFound();
    const tag = await resolvePathTag(store, projectId, command.tag);
    if (!(await store.tags.unlink(projectId, storyId, tag.id)))
      throw new DomainError('NotFound', `The story does not carry the tag '${tag.name}'.`);
  };
}
