import { parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { parseTagName } from '../domain/tags';
import type { TagRecord } from './ports';
import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import { projectKey, publishTagChange, resolvePathTag, tagNotFound } from './tag-support';
import type { TagsStore } from './tags-store';

export interface UpdateTagCommand {
  projectId: number;
  tag: string;
  /** Undefined: the tag is answered unchanged. */
  name?: string;
  /** 0 or undefined = unconditional; else the rename happens only if the tag is at this version. */
  expectedVersion?: number;
  /** The caller (from call metadata): the actor of the `tag.updated` event. */
  actorId: number;
}

export type UpdateTag = (command: UpdateTagCommand) => Promise<TagRecord>;

/**
 * Renames a tag; its links are by id, so it stays on its stories. A name taken by another tag → 409. The tag
 * row is locked before the version check, so no other rename or delete comes between the check and the write.
 */
export function makeUpdateTag(store: TagsStore, signal: OutboxSignal = noSignal): UpdateTag {
  return async (command) => {
    const projectId = projectKey(command.projectId);
    const expectedVersion = parseExpectedVersion(command.expectedVersion);
    const updated = await store.transaction(async (tx) => {
      const resolved = await resolvePathTag(tx, projectId, command.tag);
      const tag = await tx.tags.findForUpdate(projectId, resolved.id);
      if (!tag) throw tagNotFound(); // deleted meanwhile
      requireVersion('Tag', tag.id, tag.version, expectedVersion);
      if (command.name === undefined) return tag;
      const renamed = await tx.tags.rename(projectId, tag.id, parseTagName(command.name));
      if (!renamed) throw tagNotFound();
      const actorId = command.actorId;
      await publishTagChange(tx.outbox, { projectId, actorId, type: 'tag.updated', tag: renamed });
      return renamed;
    });
    signal();
    return updated;
  };
}
