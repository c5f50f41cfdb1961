import { loadBoardsProto, type boards } from '@flowboard/proto';
import { createGrpcClient, unaryCall } from '@flowboard/service-kit';

export const BOARDS_SERVICE = 'flowboard.boards.v1.BoardsService';

/** Typed calls to boards with deadlines; CreateBoard is idempotent, so it retries like the reads. */
export function createBoardsClient(address: string, deadlineMs: number) {
  const { BoardsService } = loadBoardsProto().flowboard.boards.v1;
  const client = createGrpcClient(BoardsService, address, {
    serviceName: BOARDS_SERVICE,
    idempotentMethods: ['CreateBoard', 'ListPhases', 'GetStory', 'ListStories'],
  });
  const options = { deadlineMs };
  return {
    createBoard: (projectId: number) => unaryCall(client, 'CreateBoard', { project_id: projectId }, options),
    listPhases: (projectId: number) => unaryCall(client, 'ListPhases', { project_id: projectId }, options),
    createStory: (request: boards.CreateStoryRequest) => unaryCall(client, 'CreateStory', request, options),
    getStory: (projectId: number, storyId: number) =>
      unaryCall(client, 'GetStory', { project_id: projectId, story_id: storyId }, options),
    listStories: (request: boards.ListStoriesRequest) => unaryCall(client, 'ListStories', request, options),
    updateStory: (request: boards.UpdateStoryRequest) => unaryCall(client, 'UpdateStory', request, options),
    deleteStory: (projectId: number, storyId: number) =>
      unaryCall(client, 'DeleteStory', { project_id: projectId, story_id: storyId }, options),
    close: () => client.close(),
  };
}

export type BoardsClient = ReturnType<typeof createBoardsClient>;
