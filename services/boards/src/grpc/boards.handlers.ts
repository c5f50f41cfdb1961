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
import type { ListTasks } from '../application/list-tasks';
import type { GetTask } from '../application/get-task';
import type { CreateTask } from '../application/create-task';
import type { UpdateTask } from '../application/update-task';
import type { DeleteTask } from '../application/delete-task';
import type { ReorderTasks } from '../application/reorder-tasks';
import type { BatchGetStoryTasks } from '../application/batch-get-story-tasks';
import type { ListComments } from '../application/list-comments';
import type { GetComment } from '../application/get-comment';
import type { CreateComment } from '../application/create-comment';
import type { UpdateComment } from '../application/update-comment';
import type { DeleteComment } from '../application/delete-comment';
import type { BatchGetStoryComments } from '../application/batch-get-story-comments';
import { toCommentMessage, toPhaseMessage, toStoryMessage, toTaskMessage } from './mappers';

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
  listTasks: ListTasks;
  getTask: GetTask;
  createTask: CreateTask;
  updateTask: UpdateTask;
  deleteTask: DeleteTask;
  reorderTasks: ReorderTasks;
  batchGetStoryTasks: BatchGetStoryTasks;
  listComments: ListComments;
  getComment: GetComment;
  createComment: CreateComment;
  updateComment: UpdateComment;
  deleteComment: DeleteComment;
  batchGetStoryComments: BatchGetStoryComments;
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
          tasks: request.tasks.map((t) => ({ text: t.text, status: t.status })),
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
    ListTasks: unary(
      logger,
      async (request: boards.ListTasksRequest__Output): Promise<boards.ListTasksResponse> => {
        const { tasks, total } = await useCases.listTasks({
          projectId: request.project_id,
          storyId: request.story_id,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
        });
        return { tasks: tasks.map(toTaskMessage), total_items: total };
      },
    ),

    GetTask: unary(
      logger,
      async (request: boards.GetTaskRequest__Output): Promise<boards.GetTaskResponse> => ({
        task: toTaskMessage(await useCases.getTask(request.project_id, request.story_id, request.task_id)),
      }),
    ),

    CreateTask: unary(
      logger,
      async (request: boards.CreateTaskRequest__Output, ctx): Promise<boards.CreateTaskResponse> => ({
        task: toTaskMessage(
          await useCases.createTask({
            projectId: request.project_id,
            storyId: request.story_id,
            text: request.text,
            status: request.status,
            callerId: requireUser(ctx),
          }),
        ),
      }),
    ),

    UpdateTask: unary(
      logger,
      async (request: boards.UpdateTaskRequest__Output, ctx): Promise<boards.UpdateTaskResponse> => {
        const mask = new Set(request.update_mask);
        const task = await useCases.updateTask({
          projectId: request.project_id,
          storyId: request.story_id,
          taskId: request.task_id,
          text: mask.has('text') ? request.text : undefined,
          status: mask.has('status') ? request.status : undefined,
          callerId: requireUser(ctx),
        });
        return { task: toTaskMessage(task) };
      },
    ),

    DeleteTask: unary(
      logger,
      async (request: boards.DeleteTaskRequest__Output): Promise<boards.DeleteTaskResponse> => {
        await useCases.deleteTask(request.project_id, request.story_id, request.task_id);
        return {};
      },
    ),

    ReorderTasks: unary(
      logger,
      async (request: boards.ReorderTasksRequest__Output): Promise<boards.ReorderTasksResponse> => {
        const { tasks, total } = await useCases.reorderTasks({
          projectId: request.project_id,
          storyId: request.story_id,
          taskIds: request.task_ids,
          page: request.page,
          pageSize: request.page_size,
        });
        return { tasks: tasks.map(toTaskMessage), total_items: total };
      },
    ),

    BatchGetStoryTasks: unary(
      logger,
      async (
        request: boards.BatchGetStoryTasksRequest__Output,
      ): Promise<boards.BatchGetStoryTasksResponse> => {
        const byStory = await useCases.batchGetStoryTasks(request.project_id, request.story_ids);
        return {
          stories: [...byStory].map(([storyId, tasks]) => ({
            story_id: storyId,
            tasks: tasks.map(toTaskMessage),
          })),
        };
      },
    ),

    ListComments: unary(
      logger,
      async (request: boards.ListCommentsRequest__Output): Promise<boards.ListCommentsResponse> => {
        const { comments, total } = await useCases.listComments({
          projectId: request.project_id,
          storyId: request.story_id,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
        });
        return { comments: comments.map(toCommentMessage), total_items: total };
      },
    ),

    GetComment: unary(
      logger,
      async (request: boards.GetCommentRequest__Output): Promise<boards.GetCommentResponse> => ({
        comment: toCommentMessage(
          await useCases.getComment(request.project_id, request.story_id, request.comment_id),
        ),
      }),
    ),

    CreateComment: unary(
      logger,
      async (request: boards.CreateCommentRequest__Output, ctx): Promise<boards.CreateCommentResponse> => ({
        comment: toCommentMessage(
          await useCases.createComment({
            projectId: request.project_id,
            storyId: request.story_id,
            text: request.text,
            callerId: requireUser(ctx),
          }),
        ),
      }),
    ),

    UpdateComment: unary(
      logger,
      async (request: boards.UpdateCommentRequest__Output, ctx): Promise<boards.UpdateCommentResponse> => ({
        comment: toCommentMessage(
          await useCases.updateComment({
            projectId: request.project_id,
            storyId: request.story_id,
            commentId: request.comment_id,
            text: request.update_mask.includes('text') ? request.text : undefined,
            callerId: requireUser(ctx),
          }),
        ),
      }),
    ),

    DeleteComment: unary(
      logger,
      async (request: boards.DeleteCommentRequest__Output, ctx): Promise<boards.DeleteCommentResponse> => {
        await useCases.deleteComment({
          projectId: request.project_id,
          storyId: request.story_id,
          commentId: request.comment_id,
          callerId: requireUser(ctx),
          isAdmin: request.is_admin,
        });
        return {};
      },
    ),

    BatchGetStoryComments: unary(
      logger,
      async (
        request: boards.BatchGetStoryCommentsRequest__Output,
      ): Promise<boards.BatchGetStoryCommentsResponse> => {
        const byStory = await useCases.batchGetStoryComments(request.project_id, request.story_ids);
        return {
          stories: [...byStory].map(([storyId, comments]) => ({
            story_id: storyId,
            comments: comments.map(toCommentMessage),
          })),
        };
      },
    ),
  };
}
