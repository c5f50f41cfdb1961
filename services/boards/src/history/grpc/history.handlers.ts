import type { boards } from '@flowboard/proto';
import { unary, type Logger } from '@flowboard/service-kit';
import type { HistoryUseCases } from '../application/history-use-cases';
import { toProjectMetricsMessage, toStoryHistoryMessage } from './history-messages';

/**
 * HistoryService: gRPC request → use case → response. Errors are mapped by `unary` through service-kit's one
 * table.
 */
export function historyHandlers(logger: Logger, useCases: HistoryUseCases): boards.HistoryServiceHandlers {
  return {
    BatchGetStoryHistory: unary(
      logger,
      async (
        request: boards.BatchGetStoryHistoryRequest__Output,
      ): Promise<boards.BatchGetStoryHistoryResponse> => {
        const byStory = await useCases.batchGetStoryHistory(request.project_id, request.story_ids, {
          milestones: request.milestones,
          steps: request.steps,
          metrics: request.metrics,
        });
        return { stories: [...byStory].map(([storyId, history]) => toStoryHistoryMessage(storyId, history)) };
      },
    ),

    BatchGetProjectMetrics: unary(
      logger,
      async (
        request: boards.BatchGetProjectMetricsRequest__Output,
      ): Promise<boards.BatchGetProjectMetricsResponse> => {
        const byProject = await useCases.batchGetProjectMetrics(request.project_ids);
        return {
          projects: [...byProject].map(([projectId, metrics]) => toProjectMetricsMessage(projectId, metrics)),
        };
      },
    ),
  };
}
