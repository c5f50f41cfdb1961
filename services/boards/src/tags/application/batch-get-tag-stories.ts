import { DomainError } from '@flowboard/service-kit';
import { projectKey } from './tag-support';
import type { TagsStore } from './tags-store';

export type BatchGetTagStories = (
  projectId: number,
  tagIds: readonly number[],
) => Promise<Map<number, Array<{ id: number; text: string }>>>;

/** At most this many tags in one batch (a page of tags is at most 1000). */
const MAX_BATCH_TAGS = 1000;

/** The tags' `stories` enrichment: `{id, text}` per tag in board order (every requested tag present), one query. */
export function makeBatchGetTagStories(store: TagsStore): BatchGetTagStories {
  return async (rawProjectId, tagIds) => {
    const projectId = projectKey(rawProjectId);
    const ids = [...new Set(tagIds.filter((id) => Number.isSafeInteger(id) && id > 0))];
    if (ids.length > MAX_BATCH_TAGS)
      throw new DomainError('InvalidArgument', `At most ${MAX_BATCH_TAGS} tags per batch.`, {
        problem: 'invalid-field',
      });
    const byTag = new Map<number, Array<{ id: number; text: string }>>(ids.map((id) => [id, []]));
    for (const s of await store.tags.storiesOfTags(projectId, ids))
      byTag.get(s.tagId)?.push({ id: s.storyId, text: s.text });
    return byTag;
  };
}
