import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../../shared/domain/ids';
import type { StoryRepository } from './ports';

/** The checks of a story's sub-resources (tasks, comments, its tags): the story in the path must exist. */

export interface StoryChildKey {
  projectId: number;
  storyId: number;
}

/** Positive ids, else 400 (project) or 404 (story: a path segment that names nothing). */
export function storyKey(projectId: number, storyId: number): StoryChildKey {
  const project = requirePositiveId('project_id', projectId);
  if (!Number.isSafeInteger(storyId) || storyId <= 0) throw storyNotFound();
  return { projectId: project, storyId };
}

export const storyNotFound = () => new DomainError('NotFound', 'Story not found');

/** 404 when the story does not exist. */
export async function requireStory(repos: { stories: StoryRepository }, key: StoryChildKey): Promise<void> {
  if (!(await repos.stories.find(key.projectId, key.storyId))) throw storyNotFound();
}

/** A child id from a path; anything not a positive integer names nothing. */
export const childId = (value: number): number => (Number.isSafeInteger(value) && value > 0 ? value : 0);
