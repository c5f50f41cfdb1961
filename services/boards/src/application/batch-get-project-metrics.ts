import { DomainError } from '@flowboard/service-kit';
import {
  projectMetrics,
  storyMetrics,
  type ProjectMetrics,
  type StoryMetrics,
} from '../domain/story-metrics';
import { requirePositiveId } from '../domain/ids';
import type { StoryHistoryReader } from './history-ports';

export type BatchGetProjectMetrics = (projectIds: readonly number[]) => Promise<Map<number, ProjectMetrics>>;

/** At most this many projects per call (a page of projects is at most 1000). */
export const MAX_BATCH_PROJECTS = 1000;

/**
 * Project metrics (docs/compat.md §5.2) of several projects in one query: the stories that are in Archive and
 * entered it within the last `windowDays`. Every requested project is in the answer, all 0 when nothing
 * finished (or it has no board).
 */
export function makeBatchGetProjectMetrics(
  reader: StoryHistoryReader,
  windowDays: number,
  clock: () => Date = () => new Date(),
): BatchGetProjectMetrics {
  return async (rawIds) => {
    const ids = [...new Set(rawIds.map((id) => requirePositiveId('project_ids', id)))];
    if (ids.length > MAX_BATCH_PROJECTS)
      throw new DomainError('InvalidArgument', `At most ${MAX_BATCH_PROJECTS} projects per batch.`, {
        problem: 'invalid-field',
      });
    const now = clock();
    const since = new Date(now.getTime() - windowDays * 86_400_000);
    const finished = await reader.finishedSince(ids, since);
    const byProject = new Map(ids.map((id) => [id, [] as NonNullable<StoryMetrics['finished']>[]]));
    for (const story of finished) {
      const m = storyMetrics(story.createdAt, story.steps, now).finished;
      if (m) byProject.get(story.projectId)?.push(m);
    }
    return new Map([...byProject].map(([id, stories]) => [id, projectMetrics(stories)]));
  };
}
