import { parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { noSignal, publishStoryChange, type OutboxSignal } from '../../shared/application/resource-events';
import { requirePositiveId } from '../../shared/domain/ids';
import { childId, storyKey, storyNotFound } from '../../stories/application/story-children';
import { applyTaskStatus, parseTaskStatus, parseTaskText } from '../domain/tasks';
import { taskNotFound } from './get-task';
import type { TaskRecord } from './ports';
import { toTaskMessage } from './task-message';
import type { TasksStore } from './tasks-store';

export interface UpdateTaskCommand {
  projectId: number;
  storyId: number;
  taskId: number;
  /** undefined = unchanged. */
  text?: string;
  status?: string;
  callerId: number;
  /** 0 or undefined = unconditional; else the update happens only if the task is at this version. */
  expectedVersion?: number;
}

export type UpdateTask = (command: UpdateTaskCommand) => Promise<TaskRecord>;

/**
 * Any subset of text and status; completing sets finishTime/finishedBy (the caller), reopening clears both.
 * Publishes `task.updated` when that changed what the task shows (its version rose), else nothing.
 */
export function makeUpdateTask(store: TasksStore, signal: OutboxSignal = noSignal): UpdateTask {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const caller = requirePositiveId('caller', command.callerId);
    const expectedVersion = parseExpectedVersion(command.expectedVersion);
    const result = await store.transaction(async (tx) => {
      // Every task write holds the story lock, so the task read under it stays as it is until the commit.
      if (!(await tx.tasks.lockStory(key.projectId, key.storyId))) throw storyNotFound();
      const task = childId(command.taskId)
        ? await tx.tasks.find(key.projectId, key.storyId, command.taskId)
        : undefined;
      if (!task) throw taskNotFound();
      requireVersion('Task', task.id, task.version, expectedVersion);
      const text = command.text === undefined ? task.text : parseTaskText(command.text);
      const completion =
        command.status === undefined
          ? task
          : applyTaskStatus(task, parseTaskStatus(command.status), caller, new Date());
      const updated = await tx.tasks.update(key.projectId, key.storyId, task.id, {
        text,
        status: completion.status,
        finishedAt: completion.finishedAt,
        finishedBy: completion.finishedBy,
      });
      if (updated.version !== task.version) {
        await publishStoryChange(tx.outbox, {
          ...key,
          actorId: caller,
          type: 'task.updated',
          resource: toTaskMessage(updated),
        });
      }
      return updated;
    });
    signal();
    return result;
  };
}
