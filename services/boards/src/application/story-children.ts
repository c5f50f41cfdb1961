import { DomainError } from '@flowboard/service-kit';
import { parseFilter } from '../domain/filter';
import { requirePositiveId } from '../domain/ids';
import type { BoardsRepositories } from './ports';
import { MAX_PAGE_SIZE } from './list-stories';

/** Shared checks of the story sub-resources (tasks, comments). */

export interface StoryChildKey {
  projectId: number;
  storyId: number;
}

const invalidParameter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-parameter' });

/** Positive ids, else 400 (project) or 404 (story: a path segment that names nothing). */
export function storyKey(projectId: number, storyId: number): StoryChildKey {
  const project = requirePositiveId('project_id', projectId);
  if (!Number.isSafeInteger(storyId) || storyId <= 0) throw storyNotFound();
  return { projectId: project, storyId };
}

export const storyNotFound = () => new DomainError('NotFound', 'Story not found');

/** 404 when the story does not exist. */
export async function requireStory(repos: BoardsRepositories, key: StoryChildKey): Promise<void> {
  if (!(await repos.stories.find(key.projectId, key.storyId))) throw storyNotFound();
}

/** A child id from a path; anything not a positive integer names nothing. */
export const childId = (value: number): number => (Number.isSafeInteger(value) && value > 0 ? value : 0);

/** Offset and limit of a page (the gateway has clamped already; re-checked as a contract of its own). */
export function pageWindow(page: number, pageSize: number): { offset: number; limit: number } {
  if (!Number.isSafeInteger(page) || page < 1) throw invalidParameter("Invalid 'page'.");
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
    throw invalidParameter("Invalid 'pageSize'.");
  return { offset: (page - 1) * pageSize, limit: pageSize };
}

/**
 * Tasks and comments have no filterable property: `where` is accepted, any term → 400 (docs/compat.md §4.2).
 */
export function requireNoFilterTerms(where: string): void {
  parseFilter(where, []);
}

/** At most this many stories in one batch read (a page of stories is at most 1000). */
export const MAX_BATCH_STORIES = 1000;

export function batchStoryIds(
  projectId: number,
  storyIds: readonly number[],
): { projectId: number; ids: number[] } {
  const project = requirePositiveId('project_id', projectId);
  const ids = [...new Set(storyIds.filter((id) => Number.isSafeInteger(id) && id > 0))];
  if (ids.length > MAX_BATCH_STORIES)
    throw new DomainError('InvalidArgument', `At most ${MAX_BATCH_STORIES} stories per batch.`, {
      problem: 'invalid-field',
    });
  return { projectId: project, ids };
}
