import type { boards } from '@flowboard/proto';
import { formatTimestamp } from '../../shared/domain/timestamp';
import type { CommentRecord } from '../application/ports';

/** CommentRecord → Comment message. */
export const toCommentMessage = (comment: CommentRecord): boards.Comment => ({
  id: comment.id,
  text: comment.text,
  create_time: formatTimestamp(comment.createdAt),
  author_id: comment.authorId,
  version: comment.version,
});
