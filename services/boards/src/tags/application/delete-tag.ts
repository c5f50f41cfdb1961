import { parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import { projectKey, publishTagChange, publishTagLink, resolvePathTag, tagNotFound } from './tag-support';
import type { TagsStore } from './tags-store';

export interface DeleteTagCommand {
  projectId: number;
  /** `{tag}` from the path: an id or a name. */
  tag: string;
  /** 0 or undefined = unconditional; else the tag goes only if it is at this version. */
  expectedVersion?: number;
  /** The caller (from call metadata): the actor of the `story.untagged` events. */
  actorId: number;
}

export type DeleteTag = (command: DeleteTagCommand) => Promise<void>;

/**
 * Deletes a tag; it comes off every story: `story.untagged` for each of those stories (the tag as it was), so a
 * subscriber following a story's tags misses none, then `tag.deleted`.
 */
export function makeDeleteTag(store: TagsStore, signal: OutboxSignal = noSignal): DeleteTag {
  return async ({ projectId: rawProjectId, tag: ref, expectedVersion: rawVersion, actorId }) => {
    const projectId = projectKey(rawProjectId);
    const expectedVersion = parseExpectedVersion(rawVersion);
    await store.transaction(async (tx) => {
      const tag = await resolvePathTag(tx, projectId, ref);
      if (expectedVersion !== undefined) {
        // Locked until the delete, so the version compared is the one deleted.
        const locked = await tx.tags.findForUpdate(projectId, tag.id);
        if (!locked) throw tagNotFound();
        requireVersion('Tag', tag.id, locked.version, expectedVersion);
      }
      const deleted = await tx.tags.delete(projectId, tag.id);
      if (!deleted) throw tagNotFound();
      for (const storyId of deleted.storyIds)
        await publishTagLink(tx.outbox, { projectId, storyId, actorId, tagged: false, tag: deleted.tag });
      await publishTagChange(tx.outbox, { projectId, actorId, type: 'tag.deleted', tag: deleted.tag });
    });
    signal();
  };
}
