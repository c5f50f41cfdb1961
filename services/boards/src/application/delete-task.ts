import { taskNotFound } from './get-task';
import type { BoardsStore } from './ports';
import { childId, requireStory, storyKey } from './story-children';

export type DeleteTask = (projectId: number, storyId: number, taskId: number) => Promise<void>;

/** Removes a task; the others keep their order (a gap in positions is harmless). */
export function makeDeleteTask(store: BoardsStore): DeleteTask {
  return async (projectId, storyId, taskId) => {
    const key = storyKey(projectId, storyId);
    await requireStory(store, key);
    const deleted = childId(taskId) && (await store.tasks.delete(key.projectId, key.storyId, taskId));
    if (!deleted) throw taskNotFound();
  };
}
