import { DomainError } from '@flowboard/service-kit';
import { pageWindow } from '../../shared/application/list-window';
import { parseFilter, STORY_FILTER_PROPERTIES } from '../../shared/domain/filter';
import { requirePositiveId } from '../../shared/domain/ids';
import type { OwnedStoriesReader, StoryRecord } from './ports';

export interface ListOwnedStoriesQuery {
  ownerId: number;
  /** The projects the caller may read (the gateway asked membership). */
  projectIds: readonly number[];
  where: string;
  page: number;
  pageSize: number;
  /** Every match, no paging (`/me?with=stories`). */
  all: boolean;
}

export type ListOwnedStories = (
  query: ListOwnedStoriesQuery,
) => Promise<{ stories: StoryRecord[]; total: number }>;

/** More projects than anyone is a member of; bounds the statement. */
export const MAX_OWNED_PROJECTS = 10_000;

/**
 * `/me/stories`: the stories a user owns across the given projects, in project id, phase index, board position
 * order (docs/compat.md §4.1), filtered by `where` (owner:/creator: match ids only: there is no single member
 * list).
 */
export function makeListOwnedStories(reader: OwnedStoriesReader): ListOwnedStories {
  return async (query) => {
    const ownerId = requirePositiveId('owner_id', query.ownerId);
    const projectIds = [...new Set(query.projectIds.map((id) => requirePositiveId('project_ids', id)))];
    if (projectIds.length > MAX_OWNED_PROJECTS)
      throw new DomainError('InvalidArgument', `At most ${MAX_OWNED_PROJECTS} projects.`, {
        problem: 'invalid-field',
      });
    const filter = parseFilter(query.where, STORY_FILTER_PROPERTIES);
    const window = query.all ? { offset: 0, limit: null } : pageWindow(query.page, query.pageSize);
    return reader.listOwned({ ownerId, projectIds, filter, ...window });
  };
}
