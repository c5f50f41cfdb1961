import { makeBatchGetProjectMetrics, type BatchGetProjectMetrics } from './batch-get-project-metrics';
import { makeBatchGetStoryHistory, type BatchGetStoryHistory } from './batch-get-story-history';
import type { StoryHistoryReader } from './ports';

/** Story history and metrics: what HistoryService serves. Reads only, so a reader on the pool, no store. */
export interface HistoryUseCases {
  batchGetStoryHistory: BatchGetStoryHistory;
  batchGetProjectMetrics: BatchGetProjectMetrics;
}

export const historyUseCases = (reader: StoryHistoryReader, metricsWindowDays: number): HistoryUseCases => ({
  batchGetStoryHistory: makeBatchGetStoryHistory(reader),
  batchGetProjectMetrics: makeBatchGetProjectMetrics(reader, metricsWindowDays),
});
