import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import type { AddTagStory, TagStoriesCommand } from './add-tag-story';
import {
  projectKey,
  publishTagLink,
  requireStories,
  resolvePathTag,
  tagNotFound,
  tagStoriesPage,
} from './tag-support';
import type { TagsStore } from './tags-store';

export type SetTagStories = (
  command: TagStoriesCommand & { storyIds: readonly number[] },
) => ReturnType<AddTagStory>;

/**
 * `PUT P/tags/{tag}/stories`: the tag comes off every story and goes on the given ones, in one transaction under
 * the tag row lock (concurrent replaces of one tag queue up); any unknown story → 400 and nothing changes.
 * Publishes `story.untagged` for each story it came off, then `story.tagged` for each it newly went on.
 */
export function makeSetTagStories(store: TagsStore, signal: OutboxSignal = noSignal): SetTagStories {
  return async (command) => {
    const projectId = projectKey(command.projectId);
    const page = await store.transaction(async (tx) => {
      const resolved = await resolvePathTag(tx, projectId, command.tag);
      const tag = await tx.tags.findForUpdate(projectId, resolved.id);
      if (!tag) throw tagNotFound();
      const ids = await requireStories(tx, projectId, command.storyIds);
      const { added, removed } = await tx.tags.replaceTagStories(projectId, tag.id, ids);
      const link = { projectId, actorId: command.actorId, tag };
      for (const storyId of removed) await publishTagLink(tx.outbox, { ...link, storyId, tagged: false });
      for (const storyId of added) await publishTagLink(tx.outbox, { ...link, storyId, tagged: true });
      return tagStoriesPage(tx, projectId, tag.id, command);
    });
    signal();
    return page;
  };
}
