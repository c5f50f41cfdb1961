import type { boards } from '@flowboard/proto';
import type { Dto } from './dto';
import { embeddedUser, type UsersById } from './user.dto';

/** Comment (spec "Comment"): `id, text, createTime, author`. */
export const commentDto = (comment: boards.Comment__Output, users: UsersById): Dto => ({
  id: comment.id,
  text: comment.text,
  createTime: comment.create_time,
  author: embeddedUser(comment.author_id, users),
});

export const commentUserIds = (comments: boards.Comment__Output[]): number[] =>
  comments.map((c) => c.author_id);
