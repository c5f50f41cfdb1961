import { loadBoardsProto, loadBoardsServices, type boards } from '@flowboard/proto';
import type { Upstream, UpstreamOptions } from '@flowboard/service-kit';
import { storyBatcher } from './story-batcher';

/** The probe asks boards' health about this name, which every boards release since the split reports. */
export const BOARDS_SERVICE = 'flowboard.boards.v1.StoriesService';

/** What createUpstream needs to know of boards: its six services, on one channel (one connection). */
export function boardsUpstream(): Pick<UpstreamOptions, 'services' | 'healthService'> {
  return { services: loadBoardsServices().map((Service) => Service.service), healthService: BOARDS_SERVICE };
}

/**
 * boards' RPCs as functions (`listTasks(request)`), derived from the protos of its six services with the
 * configured deadline; what retries is what the proto declares idempotent. One exception: single-story reads go
 * through the batcher.
 *
 * It calls each RPC under its own service's name (`flowboard.boards.v1.StoriesService/GetStory`...), all six on the
 * upstream's one channel. boards still serves every method under the name it had before the split,
 * `flowboard.boards.v1.BoardsService` (BOARDS_LEGACY_SERVICE in @flowboard/proto), for gateways of the release
 * before this one during a rolling upgrade; every boards release since the split serves both names, so this
 * gateway works with the boards of the previous release too. The alias goes in the release after this one.
 */
/** How much longer a bulk write's deadline is than a single call's (GRPC_DEADLINE_MS). */
export const BULK_DEADLINE_FACTOR = 6;

export function createBoardsClient(upstream: Upstream, deadlineMs: number) {
  const v1 = loadBoardsProto().flowboard.boards.v1;
  const options = { deadlineMs };
  const stories = upstream.derive(v1.StoriesService, options);
  // A bulk write carries up to 100 stories, each a write of its own under the board's lock: its deadline bounds a
  // boards that does not answer, not a board that is busy, so it is longer by that much (boards starts no write
  // whose caller has gone, so a call that timed out does not lengthen the queue behind it).
  const bulk = upstream.derive(v1.StoriesService, { deadlineMs: deadlineMs * BULK_DEADLINE_FACTOR });
  const client = {
    ...upstream.derive(v1.PhasesService, options),
    ...upstream.derive(v1.TagsService, options),
    ...upstream.derive(v1.TasksService, options),
    ...upstream.derive(v1.CommentsService, options),
    ...upstream.derive(v1.HistoryService, options),
    ...stories,
    bulkCreateStories: bulk.bulkCreateStories,
    bulkUpdateStories: bulk.bulkUpdateStories,
  };
  const readStory = storyBatcher((projectId, storyIds) =>
    stories
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
