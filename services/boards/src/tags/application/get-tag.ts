import type { TagRecord } from './ports';
import { projectKey, resolvePathTag } from './tag-support';
import type { TagsStore } from './tags-store';

export type GetTag = (projectId: number, tag: string) => Promise<TagRecord>;

/** One tag by id or name (`{tag}`); none → 404. */
export function makeGetTag(store: TagsStore): GetTag {
  return async (projectId, tag) => resolvePathTag(store, projectKey(projectId), tag);
}
