import { validateTaskOrder } from '../domain/tasks';
import type { BoardsStore, TaskRecord } from './ports';
import { pageWindow, storyKey, storyNotFound } from './story-children';

export interface ReorderTasksCommand {
  projectId: number;
  storyId: number;
  taskIds: readonly number[];
  page: number;
  pageSize: number;
}

export type ReorderTasks = (command: ReorderTasksCommand) => Promise<{ tasks: TaskRecord[]; total: number }>;

/** `PUT S/tasks`: every task exactly once, in the new order, under the story lock; answers the page. */
export function makeReorderTasks(store: BoardsStore): ReorderTasks {
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
