import { DomainError } from '@flowboard/service-kit';
import { MAX_PAGE_SIZE } from '../../shared/application/list-window';
import { parseFilter, STORY_FILTER_PROPERTIES } from '../../shared/domain/filter';
import { requirePositiveId } from '../../shared/domain/ids';
import type { StoryRecord, UserAlias } from './ports';
import type { StoriesStore } from './stories-store';

export interface ListStoriesQuery {
  projectId: number;
  where: string;
  page: number;
  pageSize: number;
  users: readonly UserAlias[];
}

export type ListStories = (query: ListStoriesQuery) => Promise<{ stories: StoryRecord[]; total: number }>;

const invalidParameter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-parameter' });

/**
 * A page of a board's stories in board order, filtered by `where` (docs/compat.md §4.2). The gateway has
 * parsed and clamped paging already; this re-checks it, since it is a contract of its own. A project without
 * a board has no stories (the gateway's access check has already said whether the project exists).
 */
export function makeListStories(store: StoriesStore): ListStories {
  return async (query) => {
    const projectId = requirePositiveId('project_id', query.projectId);
    if (!Number.isSafeInteger(query.page) || query.page < 1) throw invalidParameter("Invalid 'page'.");
    if (!Number.isSafeInteger(query.pageSize) || query.pageSize < 1 || query.pageSize > MAX_PAGE_SIZE)
      throw invalidParameter("Invalid 'pageSize'.");
    const filter = parseFilter(query.where, STORY_FILTER_PROPERTIES);
    return store.stories.list(projectId, {
      filter,
      users: query.users,
      offset: (query.page - 1) * query.pageSize,
      limit: query.pageSize,
    });
  };
}
