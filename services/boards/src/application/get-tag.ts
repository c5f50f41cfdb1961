import type { BoardsStore, TagRecord } from './ports';
import { projectKey, resolvePathTag } from './tag-support';

export type GetTag = (projectId: number, tag: string) => Promise<TagRecord>;

/** One tag by id or name (`{tag}`); none → 404. */
export function makeGetTag(store: BoardsStore): GetTag {
  return async (projectId, tag) => resolvePathTag(store, projectKey(projectId), tag);
}
