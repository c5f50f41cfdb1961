import { DomainError } from '@flowboard/service-kit';
import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import { storyNotFound } from '../../stories/application/story-children';
import { projectKey, publishTagLink, resolvePathTag } from './tag-support';
import type { TagsStore } from './tags-store';

export interface RemoveTagStoryCommand {
  projectId: number;
  /** `{tag}` from the path: an id or a name. */
  tag: string;
  storyId: number;
  /** The caller (from call metadata): the actor of `story.untagged`. */
  actorId: number;
}

export type RemoveTagStory = (command: RemoveTagStoryCommand) => Promise<void>;

/**
 * `DELETE P/tags/{tag}/stories/{id}` and `DELETE S/tags/{tag}`: takes the tag off the story and publishes
 * `story.untagged`. An unknown tag or story is 404, and so is a story that does not carry the tag (the link is
 * the resource being deleted).
 */
export function makeRemoveTagStory(store: TagsStore, signal: OutboxSignal = noSignal): RemoveTagStory {
  return async (command) => {
    const projectId = projectKey(command.projectId);
    const storyId = command.storyId;
    if (!Number.isSafeInteger(storyId) || storyId <= 0) throw storyNotFound();
    await store.transaction(async (tx) => {
      if (!(await tx.stories.find(projectId, storyId))) throw storyNotFound();
      const tag = await resolvePathTag(tx, projectId, command.tag);
      if (!(await tx.tags.unlink(projectId, storyId, tag.id)))
        throw new DomainError('NotFound', `The story does not carry the tag '${tag.name}'.`);
      await publishTagLink(tx.outbox, { projectId, storyId, actorId: command.actorId, tagged: false, tag });
    });
    signal();
  };
}
