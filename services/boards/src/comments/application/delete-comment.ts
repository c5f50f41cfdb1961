import { parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { noSignal, publishStoryChange, type OutboxSignal } from '../../shared/application/resource-events';
import { requirePositiveId } from '../../shared/domain/ids';
import { childId, requireStory, storyKey } from '../../stories/application/story-children';
import { requireCanDeleteComment } from '../domain/comments';
import { toCommentMessage } from './comment-message';
import type { CommentsStore } from './comments-store';
import { commentNotFound } from './get-comment';

export interface DeleteCommentCommand {
  projectId: number;
  storyId: number;
  commentId: number;
  callerId: number;
  /** The caller has Admin access on the project (the gateway's access check). */
  isAdmin: boolean;
  /** 0 or undefined = unconditional; else the comment goes only if it is at this version. */
  expectedVersion?: number;
}

export type DeleteComment = (command: DeleteCommentCommand) => Promise<void>;

/**
 * The author or a project admin may delete a comment (else PERMISSION_DENIED); a conditional delete then
 * checks the version. Publishes `comment.deleted` with the comment as it was.
 */
export function makeDeleteComment(store: CommentsStore, signal: OutboxSignal = noSignal): DeleteComment {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const caller = requirePositiveId('caller', command.callerId);
    const expectedVersion = parseExpectedVersion(command.expectedVersion);
    await store.transaction(async (tx) => {
      await requireStory(tx, key);
      const comment = childId(command.commentId)
        ? await tx.comments.findForUpdate(key.projectId, key.storyId, command.commentId)
        : undefined;
      if (!comment) throw commentNotFound();
      requireCanDeleteComment(comment, caller, command.isAdmin);
      requireVersion('Comment', comment.id, comment.version, expectedVersion);
      await tx.comments.delete(key.projectId, key.storyId, comment.id);
      await publishStoryChange(tx.outbox, {
        ...key,
        actorId: caller,
        type: 'comment.deleted',
        resource: toCommentMessage(comment),
      });
    });
    signal();
  };
}
