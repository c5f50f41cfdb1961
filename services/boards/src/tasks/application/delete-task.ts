import { parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { childId, storyKey, storyNotFound } from '../../stories/application/story-children';
import { taskNotFound } from './get-task';
import type { TasksStore } from './tasks-store';

/** `expectedVersion` 0 or undefined = unconditional; else the task goes only if it is at this version. */
export type DeleteTask = (
  projectId: number,
  storyId: number,
  taskId: number,
  expectedVersion?: number,
) => Promise<void>;

/**
 * Removes a task; the others keep their order (a gap in positions is harmless). Under the story lock, like
 * every task write, so a conditional delete compares the version no other write can change before the commit.
 */
export function makeDeleteTask(store: TasksStore): DeleteTask {
  return async (projectId, storyId, rawTaskId, rawVersion) => {
    const key = storyKey(projectId, storyId);
    const taskId = childId(rawTaskId);
    const expectedVersion = parseExpectedVersion(rawVersion);
    await store.transaction(async (tx) => {
      if (!(await tx.tasks.lockStory(key.projectId, key.storyId))) throw storyNotFound();
      if (expectedVersion !== undefined) {
        const task = taskId ? await tx.tasks.find(key.projectId, key.storyId, taskId) : undefined;
        if (!task) throw taskNotFound();
        requireVersion('Task', task.id, task.version, expectedVersion);
      }
      if (!taskId || !(await tx.tasks.delete(key.projectId, key.storyId, taskId))) throw taskNotFound();
    });
  };
}
