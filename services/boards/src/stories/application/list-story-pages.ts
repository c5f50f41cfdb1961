import { keysetWindow } from '../../shared/application/list-window';
import { parseFilter, STORY_FILTER_PROPERTIES } from '../../shared/domain/filter';
import { requirePositiveId } from '../../shared/domain/ids';
import { parseSyncPosition } from '../domain/sync-position';
import type { StoryChanges, StoryPagesReader, StoryRecord, UserAlias } from './ports';

/** Cursor paging and updatedSince of ListStories (README "Sync: cursors and updatedSince"). */

export interface StoriesByIdQuery {
  projectId: number;
  where: string;
  users: readonly UserAlias[];
  /** 0 = from the first story. */
  afterId: number;
  pageSize: number;
}

export type ListStoriesById = (
  query: StoriesByIdQuery,
) => Promise<{ stories: StoryRecord[]; total: number; more: boolean }>;

export interface StoryChangesQuery {
  projectId: number;
  /** A position an earlier sync answered, or '' for every story. */
  since: string;
  afterId: number;
  pageSize: number;
}

export type ListStoryChanges = (query: StoryChangesQuery) => Promise<StoryChanges>;

/** A page of a board's stories in id order after a story id, filtered by `where`. */
export function makeListStoriesById(reader: StoryPagesReader): ListStoriesById {
  return async (query) => {
    const projectId = requirePositiveId('project_id', query.projectId);
    const window = keysetWindow(query.afterId, query.pageSize);
    const filter = parseFilter(query.where, STORY_FILTER_PROPERTIES);
    return reader.byId(projectId, { filter, users: query.users, ...window });
  };
}

/** A page of the changes since a sync position, in id order after a story id. */
export function makeListStoryChanges(reader: StoryPagesReader): ListStoryChanges {
  return async (query) => {
    const projectId = requirePositiveId('project_id', query.projectId);
    const window = keysetWindow(query.afterId, query.pageSize);
    const since = query.since === '' ? null : parseSyncPosition(query.since);
    return reader.changes(projectId, { since, ...window });
  };
}
