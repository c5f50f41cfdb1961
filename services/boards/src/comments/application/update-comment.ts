import { requirePositiveId } from '../../shared/domain/ids';
import { childId, requireStory, storyKey } from '../../stories/application/story-children';
import { parseCommentText, requireCanEditComment } from '../domain/comments';
import type { CommentsStore } from './comments-store';
import { commentNotFound } from './get-comment';
import type { CommentRecord } from './ports';

export interface UpdateCommentCommand {
  projectId: number;
  storyId: number;
  commentId: number;
  /** undefined = unchanged. */
  text?: string;
  callerId: number;
}

export type UpdateComment = (command: UpdateCommentCommand) => Promise<CommentRecord>;

/**
 * Only the author may change a comment (else PERMISSION_DENIED), checked before the body
 * (docs/compat.md §3.3).
 */
export function makeUpdateComment(store: CommentsStore): UpdateComment {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const caller = requirePositiveId('caller', command.callerId);
    return store.transaction(async (tx) => {
      await requireStory(tx, key);
      const comment = childId(command.commentId)
        ? await tx.comments.findForUpdate(key.projectId, key.storyId, command.commentId)
        : undefined;
      if (!comment) throw commentNotFound();
      requireCanEditComment(comment, caller);
      if (command.text === undefined) return comment;
      return tx.comments.updateText(key.projectId, key.storyId, comment.id, parseCommentText(command.text));
    });
  };
}
