import { requirePositiveId } from '../../shared/domain/ids';
import { storyKey, storyNotFound } from '../../stories/application/story-children';
import { applyTaskStatus, parseTaskStatus, parseTaskText } from '../domain/tasks';
import type { TaskRecord } from './ports';
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

/** Appends a task to the story, under the story's row lock (positions stay gap-free at the end). */
export function makeCreateTask(store: TasksStore): CreateTask {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const caller = requirePositiveId('caller', command.callerId);
    return store.transaction(async (tx) => {
      if (!(await tx.tasks.lockStory(key.projectId, key.storyId))) throw storyNotFound();
      const text = parseTaskText(command.text);
      const completion = applyTaskStatus(
        { status: 'incomplete', finishedAt: null, finishedBy: null },
        parseTaskStatus(command.status),
        caller,
        new Date(),
      );
      return tx.tasks.append(key.projectId, key.storyId, { text, ...completion });
    });
  };
}
