import { keysetWindow } from '../../shared/application/list-window';
import { parseFilter, STORY_FILTER_PROPERTIES } from '../../shared/domain/filter';
import type { StoryPagesReader, StoryRecord, UserAlias } from '../../stories/application/ports';
import { projectKey, resolvePathTag, tagStoriesPage } from './tag-support';
import type { TagsStore } from './tags-store';

export interface ListTagStoriesQuery {
  projectId: number;
  tag: string;
  where: string;
  page: number;
  pageSize: number;
  users: readonly UserAlias[];
  /** Cursor paging: the stories after this story id, in id order (`page` is ignored). */
  afterId?: number;
}

/** `more` is there exactly when the stories were paged by keyset (`afterId`). */
export type ListTagStories = (
  query: ListTagStoriesQuery,
) => Promise<{ stories: StoryRecord[]; total: number; more?: boolean }>;

/**
 * `GET P/tags/{tag}/stories`: a page of the tag's stories in board order, or by keyset in id order (read on the pool
 * by `storyPages`), narrowed by a story filter.
 */
export function makeListTagStories(store: TagsStore, storyPages: StoryPagesReader): ListTagStories {
  return async (query) => {
    const projectId = projectKey(query.projectId);
    const tag = await resolvePathTag(store, projectId, query.tag);
    const filter = parseFilter(query.where, STORY_FILTER_PROPERTIES);
    if (query.afterId !== undefined)
      return storyPages.byId(projectId, {
        filter,
        users: query.users,
        tagId: tag.id,
        ...keysetWindow(query.afterId, query.pageSize),
      });
    return tagStoriesPage(store, projectId, tag.id, { ...query, filter });
  };
}
