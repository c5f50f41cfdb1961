import { parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { projectKey, resolvePathTag, tagNotFound } from './tag-support';
import type { TagsStore } from './tags-store';

/** `expectedVersion` 0 or undefined = unconditional; else the tag goes only if it is at this version. */
export type DeleteTag = (projectId: number, tag: string, expectedVersion?: number) => Promise<void>;

/** Deletes a tag; it comes off every story (the links cascade). */
export function makeDeleteTag(store: TagsStore): DeleteTag {
  return async (rawProjectId, ref, rawVersion) => {
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
      if (!(await tx.tags.delete(projectId, tag.id))) throw tagNotFound();
    });
  };
}
