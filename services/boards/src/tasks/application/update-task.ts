import { requirePositiveId } from '../../shared/domain/ids';
import { childId, storyKey, storyNotFound } from '../../stories/application/story-children';
import { applyTaskStatus, parseTaskStatus, parseTaskText } from '../domain/tasks';
import { taskNotFound } from './get-task';
import type { TaskRecord } from './ports';
import type { TasksStore } from './tasks-store';

export interface UpdateTaskCommand {
  projectId: number;
  storyId: number;
  taskId: number;
  /** undefined = unchanged. */
  text?: string;
  status?: string;
  callerId: number;
}

export type UpdateTask = (command: UpdateTaskCommand) => Promise<TaskRecord>;

/** Any subset of text and status; completing sets finishTime/finishedBy (the caller), reopening clears both. */
export function makeUpdateTask(store: TasksStore): UpdateTask {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const caller = requirePositiveId('caller', command.callerId);
    return store.transaction(async (tx) => {
      if (!(await tx.tasks.lockStory(key.projectId, key.storyId))) throw storyNotFound();
      const task = childId(command.taskId)
        ? await tx.tasks.find(key.projectId, key.storyId, command.taskId)
        : undefined;
      if (!task) throw taskNotFound();
      const text = command.text === undefined ? task.text : parseTaskText(command.text);
      const completion =
        command.status === undefined
          ? task
          : applyTaskStatus(task, parseTaskStatus(command.status), caller, new Date());
      return tx.tasks.update(key.projectId, key.storyId, task.id, {
        text,
        status: completion.status,
        finishedAt: completion.finishedAt,
        finishedBy: completion.finishedBy,
      });
    });
  };
}
