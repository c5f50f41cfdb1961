import { pageWindow, requireNoFilterTerms } from '../../shared/application/list-window';
import { requireStory, storyKey } from '../../stories/application/story-children';
import type { TaskRecord } from './ports';
import type { TasksStore } from './tasks-store';

export interface ListTasksQuery {
  projectId: number;
  storyId: number;
  where: string;
  page: number;
  pageSize: number;
}

export type ListTasks = (query: ListTasksQuery) => Promise<{ tasks: TaskRecord[]; total: number }>;

/** A page of a story's tasks by position; `where` with any term → 400 (tasks have no filters). */
export function makeListTasks(store: TasksStore): ListTasks {
  return async (query) => {
    const key = storyKey(query.projectId, query.storyId);
    await requireStory(store, key);
    requireNoFilterTerms(query.where);
    const { offset, limit } = pageWindow(query.page, query.pageSize);
    return store.tasks.list(key.projectId, key.storyId, offset, limit);
  };
}
