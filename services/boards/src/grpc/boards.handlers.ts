import type { boards } from '@flowboard/proto';
import { requireUser, unary, type Logger } from '@flowboard/service-kit';
import type { CreateBoard } from '../application/create-board';
import type { CreateStory } from '../application/create-story';
import type { GetStory } from '../application/get-story';
import type { DeleteStory } from '../application/delete-story';
import type { ListPhases } from '../application/list-phases';
import type { ListStories } from '../application/list-stories';
import type { UpdateStory, UpdateStoryCommand } from '../application/update-story';
import type { CreatePhase } from '../application/create-phase';
import type { DeletePhase } from '../application/delete-phase';
import type { GetPhase } from '../application/get-phase';
import type { ListPhaseStories } from '../application/list-phase-stories';
import type { ReorderPhaseStories } from '../application/reorder-phase-stories';
import type { ReorderPhases } from '../application/reorder-phases';
import type { UpdatePhase } from '../application/update-phase';
import type { UpdateStories } from '../application/update-stories';
import { toPhaseMessage, toStoryMessage } from './mappers';

export interface BoardsUseCases {
  createBoard: CreateBoard;
  listPhases: ListPhases;
  createStory: CreateStory;
  getStory: GetStory;
  listStories: ListStories;
  updateStory: UpdateStory;
  deleteStory: DeleteStory;
  updateStories: UpdateStories;
  getPhase: GetPhase;
  createPhase: CreatePhase;
  updatePhase: UpdatePhase;
  deletePhase: DeletePhase;
  reorderPhases: ReorderPhases;
  listPhaseStories: ListPhaseStories;
  reorderPhaseStories: ReorderPhaseStories;
}

/** The request's fields named in `update_mask`, as an UpdateStoryCommand (unknown names are ignored). */
export function updateCommand(
  request: Omit<boards.UpdateStoryRequest__Output, 'story_id'> & { story_id?: number },
): UpdateStoryCommand {
  const mask = new Set(request.update_mask);
  const has = (name: string) => mask.has(name);
  return {
    projectId: request.project_id,
    storyId: request.story_id ?? 0,
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
        const phases = await useCases.listPhases(request.project_id, request.where);
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

    UpdateStories: unary(
      logger,
      async (request: boards.UpdateStoriesRequest__Output): Promise<boards.UpdateStoriesResponse> => {
        const { projectId: _p, storyId: _s, ...changes } = updateCommand(request);
        const { stories, total } = await useCases.updateStories({
          ...changes,
          projectId: request.project_id,
          where: request.where,
          users: request.users,
          page: request.page,
          pageSize: request.page_size,
        });
        return { stories: stories.map(toStoryMessage), total_items: total };
      },
    ),

    GetPhase: unary(
      logger,
      async (request: boards.GetPhaseRequest__Output): Promise<boards.GetPhaseResponse> => ({
        phase: toPhaseMessage(await useCases.getPhase(request.project_id, request.phase_id)),
      }),
    ),

    CreatePhase: unary(
      logger,
      async (request: boards.CreatePhaseRequest__Output): Promise<boards.CreatePhaseResponse> => {
        const phase = await useCases.createPhase({
          projectId: request.project_id,
          name: request.name,
          description: request.description,
          index: request.has_index ? request.index : undefined,
          limit: request.limit,
        });
        return { phase: toPhaseMessage(phase) };
      },
    ),

    UpdatePhase: unary(
      logger,
      async (request: boards.UpdatePhaseRequest__Output): Promise<boards.UpdatePhaseResponse> => {
        const mask = new Set(request.update_mask);
        const phase = await useCases.updatePhase({
          projectId: request.project_id,
          phaseId: request.phase_id,
          name: mask.has('name') ? request.name : undefined,
          description: mask.has('description') ? request.description : undefined,
          index: mask.has('index') ? request.index : undefined,
          limit: mask.has('limit') ? request.limit : undefined,
        });
        return { phase: toPhaseMessage(phase) };
      },
    ),

    DeletePhase: unary(
      logger,
      async (request: boards.DeletePhaseRequest__Output): Promise<boards.DeletePhaseResponse> => {
        await useCases.deletePhase(request.project_id, request.phase_id);
        return {};
      },
    ),

    ReorderPhases: unary(
      logger,
      async (request: boards.ReorderPhasesRequest__Output): Promise<boards.ReorderPhasesResponse> => {
        const phases = await useCases.reorderPhases(request.project_id, request.phase_ids);
        return { phases: phases.map(toPhaseMessage) };
      },
    ),

    ListPhaseStories: unary(
      logger,
      async (request: boards.ListPhaseStoriesRequest__Output): Promise<boards.ListPhaseStoriesResponse> => {
        const { phase, stories } = await useCases.listPhaseStories({
          projectId: request.project_id,
          phaseId: request.phase_id,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
          users: request.users,
        });
        return { phase: toPhaseMessage(phase), stories: stories.map(toStoryMessage) };
      },
    ),

    ReorderPhaseStories: unary(
      logger,
      async (
        request: boards.ReorderPhaseStoriesRequest__Output,
      ): Promise<boards.ReorderPhaseStoriesResponse> => {
        const { phase, stories } = await useCases.reorderPhaseStories(
          request.project_id,
          request.phase_id,
          request.story_ids,
        );
        return { phase: toPhaseMessage(phase), stories: stories.map(toStoryMessage) };
      },
    ),
  };
}
