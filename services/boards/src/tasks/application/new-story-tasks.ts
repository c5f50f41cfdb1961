import { publishStoryChange } from '../../shared/application/resource-events';
import type { NewStoryPart } from '../../stories/application/create-story';
import { applyTaskStatus, parseTaskStatus, parseTaskText } from '../domain/tasks';
import { toTaskMessage } from './task-message';
import type { TasksRepositories } from './tasks-store';

/**
 * A new story's tasks (CreateStory's `tasks`), in order: checked before any I/O, then appended in the story's
 * transaction, each with its `task.created`; a complete one is finished by the creator.
 */
export const newStoryTasks: NewStoryPart<TasksRepositories> = (command, creatorId) => {
  if (!command.tasks || command.tasks.length === 0) return undefined;
  const now = new Date();
  const tasks = command.tasks.map((t) => ({
    text: parseTaskText(t.text),
    ...applyTaskStatus(
      { status: 'incomplete', finishedAt: null, finishedBy: null },
      parseTaskStatus(t.status),
      creatorId,
      now,
    ),
  }));
  return async (tx, story) => {
    for (const task of tasks) {
      const record = await tx.tasks.append(story.projectId, story.id, task);
      await publishStoryChange(tx.outbox, {
        projectId: story.projectId,
        storyId: story.id,
        actorId: creatorId,
        type: 'task.created',
        resource: toTaskMessage(record),
      });
    }
  };
};
