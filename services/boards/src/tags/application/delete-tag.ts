import { projectKey, resolvePathTag, tagNotFound } from './tag-support';
import type { TagsStore } from './tags-store';

export type DeleteTag = (projectId: number, tag: string) => Promise<void>;

/** Deletes a tag; it comes off every story (the links cascade). */
export function makeDeleteTag(store: TagsStore): DeleteTag {
  return async (rawProjectId, ref) => {
    const projectId = projectKey(rawProjectId);
    const tag = await resolvePathTag(store, projectId, ref);
    if (!(await store.tags.delete(projectId, tag.id))) throw tagNotFound();
  };
}
