import type { boards } from '@flowboard/proto';
import { requireUser, unary, type Logger } from '@flowboard/service-kit';
import type { CreateBoard } from '../application/create-board';
import type { CreateStory } from '../application/create-story';
import type { GetStory } from '../application/get-story';
import type { ListPhases } from '../application/list-phases';
import { toPhaseMessage, toStoryMessage } from './mappers';

export interface BoardsUseCases {
  createBoard: CreateBoard;
  listPhases: ListPhases;
  createStory: CreateStory;
  getStory: GetStory;
}

/** gRPC request → use case → response. Errors are mapped by `unary` through service-kit's one table. */
export function boardsHandlers(logger: Logger, useCases: BoardsUseCases): boards.BoardsServiceHandlers {
  return {
    CreateBoard: unary(
      logger,
      async (request: boards.CreateBoardRequest__Output): Promise<boards.CreateBoardResponse> => {
        const phases = await useCases.createBoard(request.project_id);
        return { phases: phases.map(toPhaseMessage) };
      },
    ),

    ListPhases: unary(
      logger,
      async (request: boards.ListPhasesRequest__Output): Promise<boards.ListPhasesResponse> => {
        const phases = await useCases.listPhases(request.project_id);
        return { phases: phases.map(toPhaseMessage) };
      },
    ),

    CreateStory: unary(
      logger,
      async (request: boards.CreateStoryRequest__Output, ctx): Promise<boards.CreateStoryResponse> => {
        const story = await useCases.createStory({
          projectId: request.project_id,
          text: request.text,
          details: request.details,
          size: request.size,
          priority: request.priority,
          color: request.color,
          phaseId: request.phase_id,
          ownerId: request.owner_id,
          deadline: request.deadline,
          creatorId: requireUser(ctx),
        });
        return { story: toStoryMessage(story) };
      },
    ),

    GetStory: unary(
      logger,
      async (request: boards.GetStoryRequest__Output): Promise<boards.GetStoryResponse> => {
        const story = await useCases.getStory(request.project_id, request.story_id);
        return { story: toStoryMessage(story) };
      },
    ),
  };
}
