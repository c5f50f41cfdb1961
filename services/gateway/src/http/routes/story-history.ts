import type { boards } from '@flowboard/proto';
import { type Dto, milestoneDto, stepDto, storyMetricsDto } from '@flowboard/representation';
import type { RouteDeps } from './deps';

/**
 * `with=milestones|steps|metrics` on stories: ONE BatchGetStoryHistory call for the whole page, whichever of
 * the three are requested; undefined (no call) when none is, or the page is empty.
 */
export function storyHistoryBatch(
  boards: RouteDeps['boards'],
  projectId: number,
  storyIds: number[],
  enrich: ReadonlySet<string>,
): Promise<boards.BatchGetStoryHistoryResponse__Output> | undefined {
  const parts = {
    milestones: enrich.has('milestones'),
    steps: enrich.has('steps'),
    metrics: enrich.has('metrics'),
  };
  if (storyIds.length === 0 || !(parts.milestones || parts.steps || parts.metrics)) return undefined;
  return boards.batchGetStoryHistory({ project_id: projectId, story_ids: storyIds, ...parts });
}

/** The requested history fields of one story, in the order milestones, steps, metrics; `[]` when none. */
export function storyHistoryFields(
  history: boards.StoryHistory__Output | undefined,
  enrich: ReadonlySet<string>,
): Dto {
  return {
    milestones: enrich.has('milestones') ? (history?.milestones ?? []).map(milestoneDto) : undefined,
    steps: enrich.has('steps') ? (history?.steps ?? []).map(stepDto) : undefined,
    metrics: enrich.has('metrics') && history?.metrics ? storyMetricsDto(history.metrics) : undefined,
  };
}
