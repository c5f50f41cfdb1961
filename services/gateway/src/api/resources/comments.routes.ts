import { DomainError } from '@flowboard/service-kit';
import type { boards } from '@flowboard/proto';
import { commentDto, commentUserIds } from '@flowboard/representation';
import { keysetOf, keysetPageDto } from '../../wire/page';
import type { Fields } from '../../wire/body';
import type { Call } from '../call';
import type { EnrichmentVocabulary } from '../../wire/enrichments';
import { optionalString } from '../../wire/fields';
import { empty, page, resource, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { storyChildBody } from './story-children';
import { del, get, post, put, resourceOperations } from '../operation';
import { S } from './paths';
import { servableFromCache } from './story-views';

const COMMENT_ENRICHMENTS: EnrichmentVocabulary = { names: [] };

/**
 * `S/comments` (spec "Comments", docs/compat.md §5.6): by createTime, or by cursor in id order (README "Sync:
 * cursors and updatedSince"); authors resolved in one BatchGetUsers call. Only the author may update; the author or a project admin may delete (boards decides, the gateway
 * passes whether the caller is an admin).
 */
export function commentHandlers({ boards, users: directory }: RouteDeps) {
  const ids = (call: Call) => ({ project_id: call.project.projectId, story_id: call.id('storyId') });

  async function commentReply(comment: boards.Comment__Output | null): Promise<Reply> {
    if (!comment) throw new DomainError('Internal', 'boards returned no comment');
    const users = await directory.resolve(commentUserIds([comment]));
    return resource('comment', commentDto(comment, users), comment.version);
  }

  return {
    async list(call: Call): Promise<Reply> {
      call.enrichments(COMMENT_ENRICHMENTS);
      const paging = call.paging();
      const { comments, total_items, keyset } = await boards.listComments({
        ...ids(call),
        where: call.query.get('where') ?? '',
        page: paging.page,
        page_size: paging.pageSize,
        ...keysetOf(paging),
      });
      const users = await directory.resolve(commentUserIds(comments));
      const dtos = comments.map((c) => commentDto(c, users));
      return page('comment', keysetPageDto(dtos, paging, total_items, keyset, 'boards'));
    },

    /** `POST S/comments`: `text` (required); the caller is the author. */
    async create(call: Call): Promise<Reply> {
      const fields = (await storyChildBody(boards, call, 'object')) as Fields;
      call.enrichments(COMMENT_ENRICHMENTS);
      const { comment } = await boards.createComment({
        ...ids(call),
        text: optionalString(fields, 'text') ?? '',
      });
      return commentReply(comment);
    },

    async get(call: Call): Promise<Reply> {
      call.enrichments(COMMENT_ENRICHMENTS);
      const { comment } = await boards.getComment({
        project_id: call.project.projectId,
        story_id: call.id('storyId'),
        comment_id: call.id('commentId'),
      });
      return commentReply(comment);
    },

    /** `PUT S/comments/{id}`: `text`; the author only (403 otherwise, before the body is judged). */
    async update(call: Call): Promise<Reply> {
      const fields = (await storyChildBody(boards, call, 'object')) as Fields;
      call.enrichments(COMMENT_ENRICHMENTS);
      const text = optionalString(fields, 'text');
      const { comment } = await boards.updateComment({
        ...ids(call),
        comment_id: call.id('commentId'),
        expected_version: call.expectedVersion(),
        update_mask: text === undefined ? [] : ['text'],
        text: text ?? '',
      });
      return commentReply(comment);
    },

    /** `DELETE S/comments/{id}`: ReadWrite, and the author or a project admin. */
    async remove(call: Call): Promise<Reply> {
      await boards.deleteComment({
        ...ids(call),
        comment_id: call.id('commentId'),
        expected_version: call.expectedVersion(),
        is_admin: call.project.access === 'admin',
      });
      return empty();
    },
  };
}

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const commentOperations = resourceOperations('Comments', 'comments', commentHandlers, [
  get(`${S}/comments`, 'listComments', 'List comments', {
    cursor: true,
    access: 'Read',
    cached: servableFromCache,
    ok: { page: 'Comment' },
    handler: 'list',
  }),
  post(`${S}/comments`, 'createComment', 'Create a comment', {
    access: 'ReadWrite',
    body: 'CommentText',
    ok: { one: 'Comment' },
    handler: 'create',
  }),
  get(`${S}/comments/:commentId`, 'getComment', 'Get a comment', {
    access: 'Read',
    conditional: true,
    cached: servableFromCache,
    ok: { one: 'Comment' },
    handler: 'get',
  }),
  put(`${S}/comments/:commentId`, 'updateComment', 'Update a comment', {
    access: 'ReadWrite',
    conditional: true,
    body: 'CommentUpdate',
    ok: { one: 'Comment' },
    description: "Only the comment's author (others \u2192 403).",
    handler: 'update',
  }),
  del(`${S}/comments/:commentId`, 'deleteComment', 'Delete a comment', {
    access: 'ReadWrite',
    conditional: true,
    ok: 'empty',
    handler: 'remove',
  }),
]);
