import { noSignal, publishStoryChange, type OutboxSignal } from '../../shared/application/resource-events';
import { requirePositiveId } from '../../shared/domain/ids';
import { storyKey, storyNotFound } from '../../stories/application/story-children';
import { applyTaskStatus, parseTaskStatus, parseTaskText } from '../domain/tasks';
import type { TaskRecord } from './ports';
import { toTaskMessage } from './task-message';
import type { TasksStore } from './tasks-store';

export interface CreateTaskCommand {
  projectId: number;
  storyId: number;
  text: string;
  /** "" = incomplete. */
  status: string;
  /** The caller (finisher when created complete). */
  callerId: number;
}

export type CreateTask = (command: CreateTaskCommand) => Promise<TaskRecord>;

/**
 * Appends a task to the story, under the story's row lock (positions stay gap-free at the end); publishes
 * `task.created`.
 */
export function makeCreateTask(store: TasksStore, signal: OutboxSignal = noSignal): CreateTask {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const caller = requirePositiveId('caller', command.callerId);
    const created = await store.transaction(async (tx) => {
      if (!(await tx.tasks.lockStory(key.projectId, key.storyId))) throw storyNotFound();
      const text = parseTaskText(command.text);
      const completion = applyTaskStatus(
        { status: 'incomplete', finishedAt: null, finishedBy: null },
        parseTaskStatus(command.status),
        caller,
        new Date(),
      );
      const task = await tx.tasks.append(key.projectId, key.storyId, { text, ...completion });
      await publishStoryChange(tx.outbox, {
        ...key,
        actorId: caller,
        type: 'task.created',
        resource: toTaskMessage(task),
      });
      return task;
    });
    signal();
    return created;
  };
}
