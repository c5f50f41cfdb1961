import { keysetWindow, pageWindow, requireNoFilterTerms } from '../../shared/application/list-window';
import { requireStory, storyKey } from '../../stories/application/story-children';
import type { CommentsStore } from './comments-store';
import type { CommentRecord } from './ports';

export interface ListCommentsQuery {
  projectId: number;
  storyId: number;
  where: string;
  page: number;
  pageSize: number;
  /** Cursor paging: the comments after this comment id, in id order (`page` is ignored). */
  afterId?: number;
}

/** `more` is there exactly when the comments were paged by keyset (`afterId`). */
export type ListComments = (
  query: ListCommentsQuery,
) => Promise<{ comments: CommentRecord[]; total: number; more?: boolean }>;

/** A page of a story's comments by create time (then id), or by keyset in id order; `where` with any term → 400. */
export function makeListComments(store: CommentsStore): ListComments {
  return async (query) => {
    const key = storyKey(query.projectId, query.storyId);
    await requireStory(store, key);
    requireNoFilterTerms(query.where);
    if (query.afterId !== undefined)
      return store.comments.listById(key.projectId, key.storyId, keysetWindow(query.afterId, query.pageSize));
    const { offset, limit } = pageWindow(query.page, query.pageSize);
    return store.comments.list(key.projectId, key.storyId, offset, limit);
  };
}
