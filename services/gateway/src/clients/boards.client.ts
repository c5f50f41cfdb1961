import { loadBoardsProto, type boards } from '@flowboard/proto';
import { deriveClient, type MetricsRegistry } from '@flowboard/service-kit';
import { storyBatcher } from './story-batcher';

export const BOARDS_SERVICE = 'flowboard.boards.v1.BoardsService';

/**
 * boards' RPCs as functions (`listTasks(request)`), derived from the proto with the configured deadline; what
 * retries is what the proto declares idempotent. One exception: single-story reads go through the batcher.
 */
export function createBoardsClient(address: string, deadlineMs: number, metrics?: MetricsRegistry) {
  const { BoardsService } = loadBoardsProto().flowboard.boards.v1;
  const client = deriveClient(BoardsService, address, { deadlineMs, metrics });
  const readStory = storyBatcher((projectId, storyIds) =>
    client
      .batchGetStories({ project_id: projectId, story_ids: storyIds })
      .then((response) => response.stories),
  );
  return {
    ...client,
    /** Gathered with the other reads of this turn of the event loop into one BatchGetStories call. */
    getStory: async (request: boards.GetStoryRequest): Promise<boards.GetStoryResponse__Output> => ({
      story: await readStory(Number(request.project_id), Number(request.story_id)),
    }),
  };
}

export type BoardsClient = ReturnType<typeof createBoardsClient>;
