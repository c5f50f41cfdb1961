import { batchProjectIds } from '../../shared/application/batch-ids';
import {
  projectMetrics,
  storyMetrics,
  type ProjectMetrics,
  type StoryMetrics,
} from '../domain/story-metrics';
import type { StoryHistoryReader } from './ports';

export type BatchGetProjectMetrics = (projectIds: readonly number[]) => Promise<Map<number, ProjectMetrics>>;

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
    const ids = batchProjectIds(rawIds);
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
