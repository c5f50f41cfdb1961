import { noSignal, publishStoryChange, type OutboxSignal } from '../../shared/application/resource-events';
import { requirePositiveId } from '../../shared/domain/ids';
import { requireStory, storyKey } from '../../stories/application/story-children';
import { parseCommentText } from '../domain/comments';
import { toCommentMessage } from './comment-message';
import type { CommentsStore } from './comments-store';
import type { CommentRecord } from './ports';

export interface CreateCommentCommand {
  projectId: number;
  storyId: number;
  text: string;
  /** The caller, who becomes the author. */
  callerId: number;
}

export type CreateComment = (command: CreateCommentCommand) => Promise<CommentRecord>;

/** Adds a comment by the caller and publishes `comment.created`, in one transaction. */
export function makeCreateComment(store: CommentsStore, signal: OutboxSignal = noSignal): CreateComment {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const authorId = requirePositiveId('caller', command.callerId);
    const created = await store.transaction(async (tx) => {
      await requireStory(tx, key);
      const text = parseCommentText(command.text);
      // A story deleted in between fails the foreign key; the gateway then sees an internal error once, rarely.
      const comment = await tx.comments.insert({ ...key, authorId, text });
      await publishStoryChange(tx.outbox, {
        ...key,
        actorId: authorId,
        type: 'comment.created',
        resource: toCommentMessage(comment),
      });
      return comment;
    });
    signal();
    return created;
  };
}
