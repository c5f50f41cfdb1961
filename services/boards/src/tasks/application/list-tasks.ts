import { keysetWindow, pageWindow, requireNoFilterTerms } from '../../shared/application/list-window';
import { requireStory, storyKey } from '../../stories/application/story-children';
import type { TaskRecord } from './ports';
import type { TasksStore } from './tasks-store';

export interface ListTasksQuery {
  projectId: number;
  storyId: number;
  where: string;
  page: number;
  pageSize: number;
  /** Cursor paging: the tasks after this task id, in id order (`page` is ignored). */
  afterId?: number;
}

/** `more` is there exactly when the tasks were paged by keyset (`afterId`). */
export type ListTasks = (
  query: ListTasksQuery,
) => Promise<{ tasks: TaskRecord[]; total: number; more?: boolean }>;

/**
 * A page of a story's tasks by position, or by keyset in id order; `where` with any term → 400 (tasks have no
 * filters).
 */
export function makeListTasks(store: TasksStore): ListTasks {
  return async (query) => {
    const key = storyKey(query.projectId, query.storyId);
    await requireStory(store, key);
    requireNoFilterTerms(query.where);
    if (query.afterId !== undefined)
      return store.tasks.listById(key.projectId, key.storyId, keysetWindow(query.afterId, query.pageSize));
    const { offset, limit } = pageWindow(query.page, query.pageSize);
    return store.tasks.list(key.projectId, key.storyId, offset, limit);
  };
}
