import { parseFilter, STORY_FILTER_PROPERTIES } from '../../shared/domain/filter';
import type { StoryRecord, UserAlias } from '../../stories/application/ports';
import { projectKey, resolvePathTag, tagStoriesPage } from './tag-support';
import type { TagsStore } from './tags-store';

export interface ListTagStoriesQuery {
  projectId: number;
  tag: string;
  where: string;
  page: number;
  pageSize: number;
  users: readonly UserAlias[];
}

export type ListTagStories = (
  query: ListTagStoriesQuery,
) => Promise<{ stories: StoryRecord[]; total: number }>;

/** `GET P/tags/{tag}/stories`: a page of the tag's stories in board order, narrowed by a story filter. */
export function makeListTagStories(store: TagsStore): ListTagStories {
  return async (query) => {
    const projectId = projectKey(query.projectId);
    const tag = await resolvePathTag(store, projectId, query.tag);
    const filter = parseFilter(query.where, STORY_FILTER_PROPERTIES);
    return tagStoriesPage(store, projectId, tag.id, { ...query, filter });
  };
}
