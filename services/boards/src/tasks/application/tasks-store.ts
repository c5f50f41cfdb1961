import type { Outbox } from '@flowboard/events';
import type { Store } from '../../board/application/store';
import type { StoryRepository } from '../../stories/application/ports';
import type { TaskRepository } from './ports';

/** What the task use cases reach. */
export interface TasksRepositories {
  /** The story the tasks belong to: it must exist. */
  stories: StoryRepository;
  tasks: TaskRepository;
  /** The tasks' change events, written in the change's transaction. */
  outbox: Outbox;
}

export type TasksStore = Store<TasksRepositories>;
