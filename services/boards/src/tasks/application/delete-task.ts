import { childId, requireStory, storyKey } from '../../stories/application/story-children';
import { taskNotFound } from './get-task';
import type { TasksStore } from './tasks-store';

export type DeleteTask = (projectId: number, storyId: number, taskId: number) => Promise<void>;

/** Removes a task; the others keep their order (a gap in positions is harmless). */
export function makeDeleteTask(store: TasksStore): DeleteTask {
  return async (projectId, storyId, taskId) => {
    const key = storyKey(projectId, storyId);
    await requireStory(store, key);
    const deleted = childId(taskId) && (await store.tasks.delete(key.projectId, key.storyId, taskId));
    if (!deleted) throw taskNotFound();
  };
}
