import { requirePositiveId } from '../../shared/domain/ids';
import { childId, requireStory, storyKey } from '../../stories/application/story-children';
import { requireCanDeleteComment } from '../domain/comments';
import type { CommentsStore } from './comments-store';
import { commentNotFound } from './get-comment';

export interface DeleteCommentCommand {
  projectId: number;
  storyId: number;
  commentId: number;
  callerId: number;
  /** The caller has Admin access on the project (the gateway's access check). */
  isAdmin: boolean;
}

export type DeleteComment = (command: DeleteCommentCommand) => Promise<void>;

/** The author or a project admin may delete a comment (else PERMISSION_DENIED). */
export function makeDeleteComment(store: CommentsStore): DeleteComment {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const caller = requirePositiveId('caller', command.callerId);
    await store.transaction(async (tx) => {
      await requireStory(tx, key);
      const comment = childId(command.commentId)
        ? await tx.comments.findForUpdate(key.projectId, key.storyId, command.commentId)
        : undefined;
      if (!comment) throw commentNotFound();
      requireCanDeleteComment(comment, caller, command.isAdmin);
      await tx.comments.delete(key.projectId, key.storyId, comment.id);
    });
  };
}
