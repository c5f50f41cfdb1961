import { DomainError } from '@flowboard/service-kit';
import { batchStoryIds } from '../../shared/application/batch-ids';
import { requirePositiveId } from '../../shared/domain/ids';
import type { StoryRecord } from './ports';
import type { StoriesStore } from './stories-store';

export type GetStory = (projectId: number, storyId: number) => Promise<StoryRecord>;

export function makeGetStory(store: StoriesStore): GetStory {
  return async (rawProjectId, storyId) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    const story =
      Number.isSafeInteger(storyId) && storyId > 0 ? await store.stories.find(projectId, storyId) : undefined;
    if (!story) throw new DomainError('NotFound', 'Story not found');
    return story;
  };
}

export type BatchGetStories = (projectId: number, storyIds: readonly number[]) => Promise<StoryRecord[]>;

/** The stories of `storyIds` that exist (at most 1,000 ids; duplicates and ids naming nothing are ignored). */
export function makeBatchGetStories(store: StoriesStore): BatchGetStories {
  return async (projectId, storyIds) => {
    const batch = batchStoryIds(projectId, storyIds);
    return store.stories.findMany(batch.projectId, batch.ids);
  };
}
