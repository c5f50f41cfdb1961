import type { boards } from '@flowboard/proto';
import { requireUser, unary, type Logger } from '@flowboard/service-kit';
import type { CreateBoard } from '../application/create-board';
import type { CreateStory } from '../application/create-story';
import type { GetStory } from '../application/get-story';
import type { DeleteStory } from '../application/delete-story';
import type { ListPhases } from '../application/list-phases';
import type { ListStories } from '../application/list-stories';
import type { UpdateStory, UpdateStoryCommand } from '../application/update-story';
import { toPhaseMessage, toStoryMessage } from './mappers';

export interface BoardsUseCases {
  createBoard: CreateBoard;
  listPhases: ListPhases;
  createStory: CreateStory;
  getStory: GetStory;
  listStories: ListStories;
  updateStory: UpdateStory;
  deleteStory: DeleteStory;
}

/** The request's fields named in `update_mask`, as an UpdateStoryCommand (unknown names are ignored). */
export function updateCommand(request: boards.UpdateStoryRequest__Output): UpdateStoryCommand {
  const mask = new Set(request.update_mask);
  const has = (name: string) => mask.has(name);
  return {
    projectId: request.project_id,
    storyId: request.story_id,
    text: has('text') ? request.text : undefined,
    details: has('details') ? request.details : undefined,
    size: has('size') ? request.size : undefined,
    priority: has('priority') ? request.priority : undefined,
    color: has('color') ? request.color : undefined,
    status: has('status') ? request.status : undefined,
    blockedReason: has('blocked_reason') ? request.blocked_reason : undefined,
    phaseId: has('phase') ? request.phase_id : undefined,
    ownerId: has('owner') ? request.owner_id : undefined,
    deadline: has('deadline') ? request.deadline : undefined,
  };
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

    ListStories: unary(
      logger,
      async (request: boards.ListStoriesRequest__Output): Promise<boards.ListStoriesResponse> => {
        const { stories, total } = await useCases.listStories({
          projectId: request.project_id,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
          users: request.users,
        });
        return { stories: stories.map(toStoryMessage), total_items: total };
      },
    ),

    UpdateStory: unary(
      logger,
      async (request: boards.UpdateStoryRequest__Output): Promise<boards.UpdateStoryResponse> => {
        const story = await useCases.updateStory(updateCommand(request));
        return { story: toStoryMessage(story) };
      },
    ),

    DeleteStory: unary(
      logger,
      async (request: boards.DeleteStoryRequest__Output): Promise<boards.DeleteStoryResponse> => {
        await useCases.deleteStory(request.project_id, request.story_id);
        return {};
      },
    ),
  };
}
