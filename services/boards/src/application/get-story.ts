import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/ids';
import type { BoardsStore, StoryRecord } from './ports';

export type GetStory = (projectId: number, storyId: number) => Promise<StoryRecord>;

export function makeGetStory(store: BoardsStore): GetStory {
  return async (rawProjectId, storyId) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    const story =
      Number.isSafeInteger(storyId) && storyId > 0 ? await store.stories.find(projectId, storyId) : undefined;
    if (!story) throw new DomainError('NotFound', 'Story not found');
    return story;
  };
}
