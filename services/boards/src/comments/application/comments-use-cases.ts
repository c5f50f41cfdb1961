import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
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

/** `wakeOutbox` is called once a write with events commits (the relay publishes them now). */
export const commentsUseCases = (
  store: CommentsStore,
  wakeOutbox: OutboxSignal = noSignal,
): CommentsUseCases => ({
  listComments: makeListComments(store),
  getComment: makeGetComment(store),
  createComment: makeCreateComment(store, wakeOutbox),
  updateComment: makeUpdateComment(store, wakeOutbox),
  deleteComment: makeDeleteComment(store, wakeOutbox),
  batchGetStoryComments: makeBatchGetStoryComments(store),
});
