import { batchStoryIds } from '../../shared/application/batch-ids';
import type { TaskRecord } from './ports';
import type { TasksStore } from './tasks-store';

export type BatchGetStoryTasks = (
  projectId: number,
  storyIds: readonly number[],
) => Promise<Map<number, TaskRecord[]>>;

/** `with=tasks`: the tasks of each requested story (an empty list for a story without tasks), in one query. */
export function makeBatchGetStoryTasks(store: TasksStore): BatchGetStoryTasks {
  return async (projectId, storyIds) => {
    const batch = batchStoryIds(projectId, storyIds);
    const byStory = new Map<number, TaskRecord[]>(batch.ids.map((id) => [id, []]));
    for (const task of await store.tasks.listForStories(batch.projectId, batch.ids))
      byStory.get(task.storyId)?.push(task);
    return byStory;
  };
}
