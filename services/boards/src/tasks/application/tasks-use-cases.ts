import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
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

/** `wakeOutbox` is called once a write with events commits (the relay publishes them now). */
export const tasksUseCases = (store: TasksStore, wakeOutbox: OutboxSignal = noSignal): TasksUseCases => ({
  listTasks: makeListTasks(store),
  getTask: makeGetTask(store),
  createTask: makeCreateTask(store, wakeOutbox),
  updateTask: makeUpdateTask(store, wakeOutbox),
  deleteTask: makeDeleteTask(store, wakeOutbox),
  reorderTasks: makeReorderTasks(store),
  batchGetStoryTasks: makeBatchGetStoryTasks(store),
});
