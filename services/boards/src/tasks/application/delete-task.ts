import { parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { noSignal, publishStoryChange, type OutboxSignal } from '../../shared/application/resource-events';
import { childId, storyKey, storyNotFound } from '../../stories/application/story-children';
import { taskNotFound } from './get-task';
import { toTaskMessage } from './task-message';
import type { TasksStore } from './tasks-store';

export interface DeleteTaskCommand {
  projectId: number;
  storyId: number;
  taskId: number;
  /** 0 or undefined = unconditional; else the task goes only if it is at this version. */
  expectedVersion?: number;
  /** The caller (from call metadata): the actor of `task.deleted`. */
  actorId: number;
}

export type DeleteTask = (command: DeleteTaskCommand) => Promise<void>;

/**
 * Removes a task; the others keep their order (a gap in positions is harmless). Under the story lock, like
 * every task write, so a conditional delete compares the version no other write can change before the commit.
 * Publishes `task.deleted` with the task as it was.
 */
export function makeDeleteTask(store: TasksStore, signal: OutboxSignal = noSignal): DeleteTask {
  return async ({ projectId, storyId, taskId: rawTaskId, expectedVersion: rawVersion, actorId }) => {
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
      const deleted = taskId ? await tx.tasks.delete(key.projectId, key.storyId, taskId) : undefined;
      if (!deleted) throw taskNotFound();
      await publishStoryChange(tx.outbox, {
        ...key,
        actorId,
        type: 'task.deleted',
        resource: toTaskMessage(deleted),
      });
    });
    signal();
  };
}
