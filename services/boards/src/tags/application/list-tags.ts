import { pageWindow, requireNoFilterTerms } from '../../shared/application/list-window';
import type { TagRecord } from './ports';
import { projectKey } from './tag-support';
import type { TagsStore } from './tags-store';

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
export function makeListTags(store: TagsStore): ListTags {
  return async (query) => {
    const projectId = projectKey(query.projectId);
    requireNoFilterTerms(query.where);
    const { offset, limit } = pageWindow(query.page, query.pageSize);
    return store.tags.list(projectId, offset, limit);
  };
}
