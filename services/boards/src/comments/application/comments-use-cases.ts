import { makeBatchGetStoryComments, type BatchGetStoryComments } from './batch-get-story-comments';
import type { CommentsStore } from './comments-store';
import { makeCreateComment, type CreateComment } from './create-comment';
import { makeDeleteComment, type DeleteComment } from './delete-comment';
import { makeGetComment, type GetComment } from './get-comment';
import { makeListComments, type ListComments } from './list-comments';
import { makeUpdateComment, type UpdateComment } from './update-comment';

/** Comments of a story: what CommentsService serves. */
export interface CommentsUseCases {
  listComments: ListComments;
  getComment: GetComment;
  createComment: CreateComment;
  updateComment: UpdateComment;
  deleteComment: DeleteComment;
  batchGetStoryComments: BatchGetStoryComments;
}

export const commentsUseCases = (store: CommentsStore): CommentsUseCases => ({
  listComments: makeListComments(store),
  getComment: makeGetComment(store),
  createComment: makeCreateComment(store),
  updateComment: makeUpdateComment(store),
  deleteComment: makeDeleteComment(store),
  batchGetStoryComments: makeBatchGetStoryComments(store),
});
