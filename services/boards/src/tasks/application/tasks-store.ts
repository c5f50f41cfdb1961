import type { Store } from '../../shared/application/store';
import type { StoryRepository } from '../../stories/application/ports';
import type { TaskRepository } from './ports';

/** What the task use cases reach. */
export interface TasksRepositories {
  /** The story the tasks belong to: it must exist. */
  stories: StoryRepository;
  tasks: TaskRepository;
}

export type TasksStore = Store<TasksRepositories>;
