import { DomainError } from '@flowboard/service-kit';
import { childId, requireStory, storyKey } from '../../stories/application/story-children';
import type { TaskRecord } from './ports';
import type { TasksStore } from './tasks-store';

export type GetTask = (projectId: number, storyId: number, taskId: number) => Promise<TaskRecord>;

export const taskNotFound = () => new DomainError('NotFound', 'Task not found');

export function makeGetTask(store: TasksStore): GetTask {
  return async (projectId, storyId, taskId) => {
    const key = storyKey(projectId, storyId);
    await requireStory(store, key);
    const task = childId(taskId) ? await store.tasks.find(key.projectId, key.storyId, taskId) : undefined;
    if (!task) throw taskNotFound();
    return task;
  };
}
