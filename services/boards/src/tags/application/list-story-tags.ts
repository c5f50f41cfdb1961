import { pageWindow, requireNoFilterTerms } from '../../shared/application/list-window';
import { requireStory, storyKey } from '../../stories/application/story-children';
import type { TagRecord } from './ports';
import type { TagsStore } from './tags-store';

export interface ListStoryTagsQuery {
  projectId: number;
  storyId: number;
  where: string;
  page: number;
  pageSize: number;
}

export type StoryTagsPage = { tags: TagRecord[]; total: number };
export type ListStoryTags = (query: ListStoryTagsQuery) => Promise<StoryTagsPage>;

/** `GET S/tags`: a page of the story's tags by id; `where` with any term → 400 (tags have no filters). */
export function makeListStoryTags(store: TagsStore): ListStoryTags {
  return async (query) => {
    const key = storyKey(query.projectId, query.storyId);
    await requireStory(store, key);
    requireNoFilterTerms(query.where);
    const { offset, limit } = pageWindow(query.page, query.pageSize);
    return store.tags.listForStory(key.projectId, key.storyId, offset, limit);
  };
}
