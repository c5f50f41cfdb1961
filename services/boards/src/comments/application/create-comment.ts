import { requirePositiveId } from '../../shared/domain/ids';
import { requireStory, storyKey } from '../../stories/application/story-children';
import { parseCommentText } from '../domain/comments';
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

export function makeCreateComment(store: CommentsStore): CreateComment {
  return async (command) => {
    const key = storyKey(command.projectId, command.storyId);
    const authorId = requirePositiveId('caller', command.callerId);
    await requireStory(store, key);
    const text = parseCommentText(command.text);
    // A story deleted in between fails the foreign key; the gateway then sees an internal error once, rarely.
    return store.comments.insert({ ...key, authorId, text });
  };
}
