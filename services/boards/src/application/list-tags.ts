import type { BoardsStore, TagRecord } from './ports';
import { pageWindow, requireNoFilterTerms } from './story-children';
import { projectKey } from './tag-support';

export interface ListTagsQuery {
  projectId: number;
  where: string;
  page: number;
  pageSize: number;
}

export type ListTags = (query: ListTagsQuery) => Promise<{ tags: TagRecord[]; total: number }>;

/**
 * A page of the project's tags by id; `where` with any term → 400 (tags have no filters,
 * docs/compat.md §4.2).
 */
export function makeListTags(store: BoardsStore): ListTags {
  return async (query) => {
    const projectId = projectKey(query.projectId);
    requireNoFilterTerms(query.where);
    const { offset, limit } = pageWindow(query.page, query.pageSize);
    return store.tags.list(projectId, offset, limit);
  };
}
