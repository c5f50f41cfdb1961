import type { boards } from '@flowboard/proto';
import { formatTimestamp } from '../../shared/domain/timestamp';
import type { CommentRecord } from './ports';

/** CommentRecord → Comment message: the gRPC answer, and the resource of comment events. */
export const toCommentMessage = (comment: CommentRecord): boards.Comment => ({
  id: comment.id,
  text: comment.text,
  create_time: formatTimestamp(comment.createdAt),
  author_id: comment.authorId,
  version: comment.version,
});
