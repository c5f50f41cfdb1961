import { keysetWindow, pageWindow, requireNoFilterTerms } from '../../shared/application/list-window';
import { requireStory, storyKey } from '../../stories/application/story-children';
import type { TagRecord } from './ports';
import type { TagsStore } from './tags-store';

export interface ListStoryTagsQuery {
  projectId: number;
  storyId: number;
  where: string;
  page: number;
  pageSize: number;
  /** Cursor paging: the tags after this tag id (`page` is ignored). */
  afterId?: number;
}

export type StoryTagsPage = { tags: TagRecord[]; total: number };
/** `more` is there exactly when the tags were paged by keyset (`afterId`). */
export type ListStoryTags = (query: ListStoryTagsQuery) => Promise<StoryTagsPage & { more?: boolean }>;

/**
 * `GET S/tags`: a page of the story's tags by id (by number, or by keyset); `where` with any term → 400 (tags have no
 * filters).
 */
export function makeListStoryTags(store: TagsStore): ListStoryTags {
  return async (query) => {
    const key = storyKey(query.projectId, query.storyId);
    await requireStory(store, key);
    requireNoFilterTerms(query.where);
    if (query.afterId !== undefined)
      return store.tags.listForStoryById(
        key.projectId,
        key.storyId,
        keysetWindow(query.afterId, query.pageSize),
      );
    const { offset, limit } = pageWindow(query.page, query.pageSize);
    return store.tags.listForStory(key.projectId, key.storyId, offset, limit);
  };
}
