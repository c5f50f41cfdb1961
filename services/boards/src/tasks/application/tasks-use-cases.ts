import { makeBatchGetStoryTasks, type BatchGetStoryTasks } from './batch-get-story-tasks';
import { makeCreateTask, type CreateTask } from './create-task';
import { makeDeleteTask, type DeleteTask } from './delete-task';
import { makeGetTask, type GetTask } from './get-task';
import { makeListTasks, type ListTasks } from './list-tasks';
import { makeReorderTasks, type ReorderTasks } from './reorder-tasks';
import type { TasksStore } from './tasks-store';
import { makeUpdateTask, type UpdateTask } from './update-task';

/** Tasks of a story (docs/compat.md §5.6): what TasksService serves. */
export interface TasksUseCases {
  listTasks: ListTasks;
  getTask: GetTask;
  createTask: CreateTask;
  updateTask: UpdateTask;
  deleteTask: DeleteTask;
  reorderTasks: ReorderTasks;
  batchGetStoryTasks: BatchGetStoryTasks;
}

export const tasksUseCases = (store: TasksStore): TasksUseCases => ({
  listTasks: makeListTasks(store),
  getTask: makeGetTask(store),
  createTask: makeCreateTask(store),
  updateTask: makeUpdateTask(store),
  deleteTask: makeDeleteTask(store),
  reorderTasks: makeReorderTasks(store),
  batchGetStoryTasks: makeBatchGetStoryTasks(store),
});
