import { pageWindow } from '../../shared/application/list-window';
import { storyKey, storyNotFound } from '../../stories/application/story-children';
import { validateTaskOrder } from '../domain/tasks';
import type { TaskRecord } from './ports';
import type { TasksStore } from './tasks-store';

export interface ReorderTasksCommand {
  projectId: number;
  storyId: number;
  taskIds: readonly number[];
  page: number;
  pageSize: number;
}

export type ReorderTasks = (command: ReorderTasksCommand) => Promise<{ tasks: TaskRecord[]; total: number }>;

/** `PUT S/tasks`: every task exactly once, in the new order, under the story lock; answers the page. */
export function makeReorderTasks(store: TasksStore): ReorderTasks {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const { offset, limit } = pageWindow(command.page, command.pageSize);
    return store.transaction(async (tx) => {
      if (!(await tx.tasks.lockStory(key.projectId, key.storyId))) throw storyNotFound();
      validateTaskOrder(await tx.tasks.ids(key.projectId, key.storyId), command.taskIds);
      await tx.tasks.reorder(key.projectId, key.storyId, command.taskIds);
      return tx.tasks.list(key.projectId, key.storyId, offset, limit);
    });
  };
}
