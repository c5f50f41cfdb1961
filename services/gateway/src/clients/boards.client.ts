import { BOARDS_LEGACY_SERVICE, loadBoardsLegacyService, type boards } from '@flowboard/proto';
import { deriveClient, type MetricsRegistry } from '@flowboard/service-kit';
import { storyBatcher } from '../cache';

/** The readiness check asks boards' health of this name, which boards reports before and after the split. */
export const BOARDS_SERVICE = BOARDS_LEGACY_SERVICE;

/**
 * boards' RPCs as functions (`listTasks(request)`), derived from the protos of its six services with the
 * configured deadline; what retries is what the proto declares idempotent. One exception: single-story reads go
 * through the batcher.
 *
 * It calls them under the name they had before boards was split by aggregate (one channel, one connection): a
 * boards pod of the release before the split, still running during a rolling upgrade, knows only that name. The
 * next release calls the six services by their own names (BOARDS_LEGACY_SERVICE in @flowboard/proto).
 */
export function createBoardsClient(address: string, deadlineMs: number, metrics?: MetricsRegistry) {
  const client = deriveClient(loadBoardsLegacyService(), address, { deadlineMs, metrics });
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
