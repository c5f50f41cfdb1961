import { DomainError } from '@flowboard/service-kit';
import { MAX_PAGE_SIZE } from '../../shared/application/list-window';
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

const invalidParameter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-parameter' });

function checkWindow(afterId: number, pageSize: number): void {
  if (!Number.isSafeInteger(afterId) || afterId < 0) throw invalidParameter("Invalid cursor: 'after_id'.");
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
    throw invalidParameter("Invalid 'pageSize'.");
}

/** A page of a board's stories in id order after a story id, filtered by `where`. */
export function makeListStoriesById(reader: StoryPagesReader): ListStoriesById {
  return async (query) => {
    const projectId = requirePositiveId('project_id', query.projectId);
    checkWindow(query.afterId, query.pageSize);
    const filter = parseFilter(query.where, STORY_FILTER_PROPERTIES);
    return reader.byId(projectId, {
      filter,
      users: query.users,
      afterId: query.afterId,
      limit: query.pageSize,
    });
  };
}

/** A page of the changes since a sync position, in id order after a story id. */
export function makeListStoryChanges(reader: StoryPagesReader): ListStoryChanges {
  return async (query) => {
    const projectId = requirePositiveId('project_id', query.projectId);
    checkWindow(query.afterId, query.pageSize);
    const since = query.since === '' ? null : parseSyncPosition(query.since);
    return reader.changes(projectId, { since, afterId: query.afterId, limit: query.pageSize });
  };
}
