import { batchStoryIds } from '../../shared/application/batch-ids';
import type { TagRecord } from './ports';
import type { TagsStore } from './tags-store';

export type BatchGetStoryTags = (
  projectId: number,
  storyIds: readonly number[],
) => Promise<Map<number, TagRecord[]>>;

/** `with=tags`: the tags of each requested story by id (an empty list for a story without tags), in one query. */
export function makeBatchGetStoryTags(store: TagsStore): BatchGetStoryTags {
  return async (projectId, storyIds) => {
    const batch = batchStoryIds(projectId, storyIds);
    const byStory = new Map<number, TagRecord[]>(batch.ids.map((id) => [id, []]));
    for (const { storyId, tag } of await store.tags.listForStories(batch.projectId, batch.ids))
      byStory.get(storyId)?.push(tag);
    return byStory;
  };
}
