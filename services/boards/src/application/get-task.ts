import { DomainError } from '@flowboard/service-kit';
import type { BoardsStore, TaskRecord } from './ports';
import { childId, requireStory, storyKey } from './story-children';

export type GetTask = (projectId: number, storyId: number, taskId: number) => Promise<TaskRecord>;

export const taskNotFound = () => new DomainError('NotFound', 'Task not found');

export function makeGetTask(store: BoardsStore): GetTask {
  return async (projectId, storyId, taskId) => {
    const key = storyKey(projectId, storyId);
    await requireStory(store, key);
    const task = childId(taskId) ? await store.tasks.find(key.projectId, key.storyId, taskId) : undefined;
    if (!task) throw taskNotFound();
    return task;
  };
}
