import { batchStoryIds } from '../../shared/application/batch-ids';
import { durationSeconds, storyMetrics, type StoryMetrics } from '../domain/story-metrics';
import type { MilestoneRecord, StepRecord, StoryHistoryReader } from './ports';

export interface HistoryParts {
  milestones: boolean;
  steps: boolean;
  metrics: boolean;
}

/** A milestone or step with its duration in seconds (to `now` while open). */
export type Timed<T> = T & { duration: number };

export interface StoryHistory {
  milestones?: Timed<MilestoneRecord>[];
  steps?: Timed<StepRecord>[];
  metrics?: StoryMetrics;
}

export type BatchGetStoryHistory = (
  projectId: number,
  storyIds: readonly number[],
  parts: HistoryParts,
) => Promise<Map<number, StoryHistory>>;

/**
 * `with=milestones|steps|metrics` for a page of stories: at most three indexed queries for the whole page,
 * whatever its size. Every requested story that exists is in the answer (with empty lists if need be); open
 * milestones and steps run to `now()` of this call.
 */
export function makeBatchGetStoryHistory(
  reader: StoryHistoryReader,
  clock: () => Date = () => new Date(),
): BatchGetStoryHistory {
  return async (rawProjectId, rawStoryIds, parts) => {
    const { projectId, ids } = batchStoryIds(rawProjectId, rawStoryIds);
    const byStory = new Map<number, StoryHistory>();
    if (ids.length === 0 || !(parts.milestones || parts.steps || parts.metrics)) return byStory;
    const [milestones, steps, created] = await Promise.all([
      parts.milestones ? reader.milestonesFor(projectId, ids) : [],
      parts.steps || parts.metrics ? reader.stepsFor(projectId, ids) : [],
      parts.metrics ? reader.createdAtFor(projectId, ids) : new Map<number, Date>(),
    ]);
    const now = clock();
    const group = <T extends { storyId: number }>(rows: T[]) => {
      const map = new Map<number, T[]>();
      for (const row of rows) map.set(row.storyId, [...(map.get(row.storyId) ?? []), row]);
      return map;
    };
    const timed = <T extends { start: Date; end: Date | null }>(row: T): Timed<T> => ({
      ...row,
      duration: durationSeconds(row, now),
    });
    const milestonesBy = group(milestones);
    const stepsBy = group(steps);
    for (const id of ids) {
      const history: StoryHistory = {};
      if (parts.milestones) history.milestones = (milestonesBy.get(id) ?? []).map(timed);
      if (parts.steps) history.steps = (stepsBy.get(id) ?? []).map(timed);
      if (parts.metrics) {
        const createdAt = created.get(id);
        if (!createdAt) continue; // no such story: nothing to say about it
        history.metrics = storyMetrics(createdAt, stepsBy.get(id) ?? [], now);
      }
      byStory.set(id, history);
    }
    return byStory;
  };
}
