import { keysetWindow, pageWindow, requireNoFilterTerms } from '../../shared/application/list-window';
import type { TagRecord } from './ports';
import { projectKey } from './tag-support';
import type { TagsStore } from './tags-store';

export interface ListTagsQuery {
  projectId: number;
  where: string;
  page: number;
  pageSize: number;
  /** Cursor paging: the tags after this tag id (`page` is ignored). */
  afterId?: number;
}

/** `more` is there exactly when the tags were paged by keyset (`afterId`). */
export type ListTags = (
  query: ListTagsQuery,
) => Promise<{ tags: TagRecord[]; total: number; more?: boolean }>;

/**
 * A page of the project's tags by id (by number, or by keyset); `where` with any term → 400 (tags have no filters,
 * docs/compat.md §4.2).
 */
export function makeListTags(store: TagsStore): ListTags {
  return async (query) => {
    const projectId = projectKey(query.projectId);
    requireNoFilterTerms(query.where);
    if (query.afterId !== undefined)
      return store.tags.listById(projectId, keysetWindow(query.afterId, query.pageSize));
    const { offset, limit } = pageWindow(query.page, query.pageSize);
    return store.tags.list(projectId, offset, limit);
  };
}
