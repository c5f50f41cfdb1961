import type { boards } from '@flowboard/proto';
import { requireUser, unary, type Logger } from '@flowboard/service-kit';
import { keysetAnswer } from '../../shared/application/list-window';
import type { TasksUseCases } from '../application/tasks-use-cases';
import { toTaskMessage } from '../application/task-message';

/**
 * TasksService: gRPC request → use case → response. Errors are mapped by `unary` through service-kit's one
 * table.
 */
export function tasksHandlers(logger: Logger, useCases: TasksUseCases): boards.TasksServiceHandlers {
  return {
    ListTasks: unary(
      logger,
      async (request: boards.ListTasksRequest__Output): Promise<boards.ListTasksResponse> => {
        const { tasks, total, more } = await useCases.listTasks({
          projectId: request.project_id,
          storyId: request.story_id,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
          afterId: request.keyset?.after_id,
        });
        return { tasks: tasks.map(toTaskMessage), total_items: total, ...keysetAnswer(more) };
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
          expectedVersion: request.expected_version,
        });
        return { task: toTaskMessage(task) };
      },
    ),

    DeleteTask: unary(
      logger,
      async (request: boards.DeleteTaskRequest__Output, ctx): Promise<boards.DeleteTaskResponse> => {
        await useCases.deleteTask({
          projectId: request.project_id,
          storyId: request.story_id,
          taskId: request.task_id,
          expectedVersion: request.expected_version,
          actorId: requireUser(ctx),
        });
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
  };
}
