import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import type { StoryRecord } from '../../stories/application/ports';
import {
  projectKey,
  publishTagLink,
  requireStories,
  resolvePathTag,
  tagNotFound,
  tagStoriesPage,
} from './tag-support';
import type { TagsStore } from './tags-store';

export interface TagStoriesCommand {
  projectId: number;
  tag: string;
  page: number;
  pageSize: number;
  /** The caller (from call metadata): the actor of the link events. */
  actorId: number;
}

export type AddTagStory = (
  command: TagStoriesCommand & { storyId: number },
) => Promise<{ stories: StoryRecord[]; total: number }>;

/**
 * `POST P/tags/{tag}/stories`: puts the tag on one story (a no-op when it is there: no event); answers the tag's
 * stories. Publishes `story.tagged` when the link is new.
 */
export function makeAddTagStory(store: TagsStore, signal: OutboxSignal = noSignal): AddTagStory {
  return async (command) => {
    const projectId = projectKey(command.projectId);
    const page = await store.transaction(async (tx) => {
      const resolved = await resolvePathTag(tx, projectId, command.tag);
      const tag = await tx.tags.findForUpdate(projectId, resolved.id);
      if (!tag) throw tagNotFound();
      const ids = await requireStories(tx, projectId, [command.storyId]);
      for (const storyId of await tx.tags.linkStories(projectId, tag.id, ids))
        await publishTagLink(tx.outbox, { projectId, storyId, actorId: command.actorId, tagged: true, tag });
      return tagStoriesPage(tx, projectId, tag.id, command);
    });
    signal();
    return page;
  };
}
