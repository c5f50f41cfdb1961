import type { FilterNode } from '../../shared/domain/filter';
import type { StoryRecord, UserAlias } from '../../stories/application/ports';
import type { SearchQuery } from '../domain/search-query';

export interface StoryMatch {
  field: 'text' | 'tag' | 'details' | 'task' | 'comment';
  /** The tag, task or comment that matched; 0 for the text and the details. */
  itemId: number;
  snippet: string;
  highlights: { start: number; length: number }[];
  score: number;
}

export interface StorySearchResult {
  stories: { story: StoryRecord; match: StoryMatch }[];
  /** The matches ranked (at most matchLimit). */
  total: number;
  /** More stories matched than matchLimit: only the first matchLimit found were ranked. */
  moreMatches: boolean;
  /** False when the query had only words too common to index (stop words): nothing can match it. */
  searchable: boolean;
}

export interface StorySearchReader {
  search(query: {
    projectIds: readonly number[];
    query: SearchQuery;
    filter?: FilterNode;
    users: readonly UserAlias[];
    offset: number;
    limit: number;
    matchLimit: number;
  }): Promise<StorySearchResult>;
}
