import type { boards } from '@flowboard/proto';
import { requireUser, unary, type Logger } from '@flowboard/service-kit';
import { keysetAnswer } from '../../shared/application/list-window';
import type { CommentsUseCases } from '../application/comments-use-cases';
import { toCommentMessage } from '../application/comment-message';

/**
 * CommentsService: gRPC request → use case → response. Errors are mapped by `unary` through service-kit's one
 * table.
 */
export function commentsHandlers(logger: Logger, useCases: CommentsUseCases): boards.CommentsServiceHandlers {
  return {
    ListComments: unary(
      logger,
      async (request: boards.ListCommentsRequest__Output): Promise<boards.ListCommentsResponse> => {
        const { comments, total, more } = await useCases.listComments({
          projectId: request.project_id,
          storyId: request.story_id,
          where: request.where,
          page: request.page,
          pageSize: request.page_size,
          afterId: request.keyset?.after_id,
        });
        return { comments: comments.map(toCommentMessage), total_items: total, ...keysetAnswer(more) };
      },
    ),

    GetComment: unary(
      logger,
      async (request: boards.GetCommentRequest__Output): Promise<boards.GetCommentResponse> => ({
        comment: toCommentMessage(
          await useCases.getComment(request.project_id, request.story_id, request.comment_id),
        ),
      }),
    ),

    CreateComment: unary(
      logger,
      async (request: boards.CreateCommentRequest__Output, ctx): Promise<boards.CreateCommentResponse> => ({
        comment: toCommentMessage(
          await useCases.createComment({
            projectId: request.project_id,
            storyId: request.story_id,
            text: request.text,
            callerId: requireUser(ctx),
          }),
        ),
      }),
    ),

    UpdateComment: unary(
      logger,
      async (request: boards.UpdateCommentRequest__Output, ctx): Promise<boards.UpdateCommentResponse> => ({
        comment: toCommentMessage(
          await useCases.updateComment({
            projectId: request.project_id,
            storyId: request.story_id,
            commentId: request.comment_id,
            text: request.update_mask.includes('text') ? request.text : undefined,
            callerId: requireUser(ctx),
            expectedVersion: request.expected_version,
          }),
        ),
      }),
    ),

    DeleteComment: unary(
      logger,
      async (request: boards.DeleteCommentRequest__Output, ctx): Promise<boards.DeleteCommentResponse> => {
        await useCases.deleteComment({
          projectId: request.project_id,
          storyId: request.story_id,
          commentId: request.comment_id,
          callerId: requireUser(ctx),
          isAdmin: request.is_admin,
          expectedVersion: request.expected_version,
        });
        return {};
      },
    ),

    BatchGetStoryComments: unary(
      logger,
      async (
        request: boards.BatchGetStoryCommentsRequest__Output,
      ): Promise<boards.BatchGetStoryCommentsResponse> => {
        const byStory = await useCases.batchGetStoryComments(request.project_id, request.story_ids);
        return {
          stories: [...byStory].map(([storyId, comments]) => ({
            story_id: storyId,
            comments: comments.map(toCommentMessage),
          })),
        };
      },
    ),
  };
}
