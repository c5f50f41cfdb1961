import {
  body,
  int,
  nonBlank,
  pageSchema,
  ref,
  resource,
  str,
  timestamp,
  type ResourceSchemas,
} from '../schema';

/** The comments of a story (comments.routes.ts). */
export const commentSchemas: ResourceSchemas = {
  responses: {
    Comment: resource('comment', ['id', 'text', 'createTime', 'author'], {
      id: int(),
      text: str(),
      createTime: timestamp,
      author: ref('UserRef'),
    }),
  },
  pages: { CommentPage: pageSchema('Comment', 'comments') },
  requests: {
    CommentText: body('comment', { text: nonBlank(100_000) }, ['text']),
    CommentUpdate: body('comment', { text: nonBlank(100_000) }),
  },
};
