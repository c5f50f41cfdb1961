import { pageWindow, requireNoFilterTerms } from '../../shared/application/list-window';
import { requireStory, storyKey } from '../../stories/application/story-children';
import type { CommentsStore } from './comments-store';
import type { CommentRecord } from './ports';

export interface ListCommentsQuery {
  projectId: number;
  storyId: number;
  where: string;
  page: number;
  pageSize: number;
}

export type ListComments = (
  query: ListCommentsQuery,
) => Promise<{ comments: CommentRecord[]; total: number }>;

/** A page of a story's comments by create time (then id); `where` with any term → 400. */
export function makeListComments(store: CommentsStore): ListComments {
  return async (query) => {
    const key = storyKey(query.projectId, query.storyId);
    await requireStory(store, key);
    requireNoFilterTerms(query.where);
    const { offset, limit } = pageWindow(query.page, query.pageSize);
    return store.comments.list(key.projectId, key.storyId, offset, limit);
  };
}
