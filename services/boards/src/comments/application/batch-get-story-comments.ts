import { batchStoryIds } from '../../shared/application/batch-ids';
import type { CommentsStore } from './comments-store';
import type { CommentRecord } from './ports';

export type BatchGetStoryComments = (
  projectId: number,
  storyIds: readonly number[],
) => Promise<Map<number, CommentRecord[]>>;

/** `with=comments`: the comments of each requested story (maybe none), in one query. */
export function makeBatchGetStoryComments(store: CommentsStore): BatchGetStoryComments {
  return async (projectId, storyIds) => {
    const batch = batchStoryIds(projectId, storyIds);
    const byStory = new Map<number, CommentRecord[]>(batch.ids.map((id) => [id, []]));
    for (const c of await store.comments.listForStories(batch.projectId, batch.ids))
      byStory.get(c.storyId)?.push(c);
    return byStory;
  };
}
