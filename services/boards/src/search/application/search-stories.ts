import { DomainError } from '@flowboard/service-kit';
import { parseFilter, STORY_FILTER_PROPERTIES } from '../../shared/domain/filter';
import { requirePositiveId } from '../../shared/domain/ids';
import type { UserAlias } from '../../stories/application/ports';
import { MAX_OWNED_PROJECTS } from '../../stories/application/list-owned-stories';
import { parseSearchQuery } from '../domain/search-query';
import type { StorySearchReader, StorySearchResult } from './ports';

export interface SearchStoriesQuery {
  /** The projects the caller may read (the gateway asked membership): one for P/search, all for /me/search. */
  projectIds: readonly number[];
  text: string;
  where: string;
  users: readonly UserAlias[];
  page: number;
  pageSize: number;
}

export type SearchStories = (
  query: SearchStoriesQuery,
) => Promise<StorySearchResult & { matchLimit: number }>;

/** A search's page is smaller than a list's: each story on it is cut into a snippet. */
export const MAX_SEARCH_PAGE_SIZE = 100;
/** At most this many matches are ranked: a word on every card of a 100,000-story board costs no more than this. */
export const SEARCH_MATCH_LIMIT = 1000;

const invalidParameter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-parameter' });

/** Ranked full-text search of stories (README "Search"); the query language is search-query.ts's. */
export function makeSearchStories(reader: StorySearchReader): SearchStories {
  return async (request) => {
    const projectIds = [...new Set(request.projectIds.map((id) => requirePositiveId('project_ids', id)))];
    if (projectIds.length > MAX_OWNED_PROJECTS)
      throw invalidParameter(`At most ${MAX_OWNED_PROJECTS} projects.`);
    if (!Number.isSafeInteger(request.page) || request.page < 1) throw invalidParameter("Invalid 'page'.");
    if (
      !Number.isSafeInteger(request.pageSize) ||
      request.pageSize < 1 ||
      request.pageSize > MAX_SEARCH_PAGE_SIZE
    )
      throw invalidParameter("Invalid 'pageSize'.");
    const query = parseSearchQuery(request.text);
    const filter = parseFilter(request.where, STORY_FILTER_PROPERTIES);
    const offset = (request.page - 1) * request.pageSize;
    // Past the last ranked match there is nothing to read; the total still comes back.
    const result = await reader.search({
      projectIds,
      query,
      filter,
      users: request.users,
      offset: Math.min(offset, SEARCH_MATCH_LIMIT),
      limit: request.pageSize,
      matchLimit: SEARCH_MATCH_LIMIT,
    });
    if (!result.searchable)
      throw invalidParameter("Query argument 'q' has only words too common to search for (such as 'the').");
    return { ...result, matchLimit: SEARCH_MATCH_LIMIT };
  };
}
