import { parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { noSignal, publishStoryChange, type OutboxSignal } from '../../shared/application/resource-events';
import { requirePositiveId } from '../../shared/domain/ids';
import { childId, requireStory, storyKey } from '../../stories/application/story-children';
import { parseCommentText, requireCanEditComment } from '../domain/comments';
import { toCommentMessage } from './comment-message';
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
  /** 0 or undefined = unconditional; else the update happens only if the comment is at this version. */
  expectedVersion?: number;
}

export type UpdateComment = (command: UpdateCommentCommand) => Promise<CommentRecord>;

/**
 * Only the author may change a comment (else PERMISSION_DENIED), checked before the body
 * (docs/compat.md §3.3). A conditional update checks the version right after the author (an access rule,
 * which comes before any precondition: RFC 9110 §13.2.1), then the body; without a text it still checks the
 * version. Publishes `comment.updated` when the text changed (its version rose), else nothing.
 */
export function makeUpdateComment(store: CommentsStore, signal: OutboxSignal = noSignal): UpdateComment {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const caller = requirePositiveId('caller', command.callerId);
    const expectedVersion = parseExpectedVersion(command.expectedVersion);
    const result = await store.transaction(async (tx) => {
      await requireStory(tx, key);
      const comment = childId(command.commentId)
        ? await tx.comments.findForUpdate(key.projectId, key.storyId, command.commentId)
        : undefined;
      if (!comment) throw commentNotFound();
      requireCanEditComment(comment, caller);
      requireVersion('Comment', comment.id, comment.version, expectedVersion);
      if (command.text === undefined) return comment;
      const text = parseCommentText(command.text);
      const updated = await tx.comments.updateText(key.projectId, key.storyId, comment.id, text);
      if (updated.version !== comment.version) {
        await publishStoryChange(tx.outbox, {
          ...key,
          actorId: caller,
          type: 'comment.updated',
          resource: toCommentMessage(updated),
        });
      }
      return updated;
    });
    signal();
    return result;
  };
}
