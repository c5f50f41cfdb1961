import type { BoardsStore, CommentRecord } from './ports';
import { pageWindow, requireNoFilterTerms, requireStory, storyKey } from './story-children';

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
export function makeListComments(store: BoardsStore): ListComments {
  return async (query) => {
    const key = storyKey(query.projectId, query.storyId);
    await requireStory(store, key);
    requireNoFilterTerms(query.where);
    const { offset, limit } = pageWindow(query.page, query.pageSize);
    return store.comments.list(key.projectId, key.storyId, offset, limit);
  };
}
