import { parseTagName } from '../domain/tags';
import type { TagRecord } from './ports';
import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import { projectKey, publishTagChange } from './tag-support';
import type { TagsStore } from './tags-store';

/** `actorId`: the caller (from call metadata), the actor of the `tag.created` event. */
export type CreateTag = (projectId: number, name: string, actorId: number) => Promise<TagRecord>;

/** A new tag; the name is trimmed and must be unique in the project ignoring case (else 409). `tag.created`. */
export function makeCreateTag(store: TagsStore, signal: OutboxSignal = noSignal): CreateTag {
  return async (rawProjectId, rawName, actorId) => {
    const projectId = projectKey(rawProjectId);
    const name = parseTagName(rawName);
    const tag = await store.transaction(async (tx) => {
      const created = await tx.tags.insert(projectId, name);
      await publishTagChange(tx.outbox, { projectId, actorId, type: 'tag.created', tag: created });
      return created;
    });
    signal();
    return tag;
  };
}
