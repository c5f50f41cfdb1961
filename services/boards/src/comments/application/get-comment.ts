import { DomainError } from '@flowboard/service-kit';
import { childId, requireStory, storyKey } from '../../stories/application/story-children';
import type { CommentsStore } from './comments-store';
import type { CommentRecord } from './ports';

export type GetComment = (projectId: number, storyId: number, commentId: number) => Promise<CommentRecord>;

export const commentNotFound = () => new DomainError('NotFound', 'Comment not found');

export function makeGetComment(store: CommentsStore): GetComment {
  return async (projectId, storyId, commentId) => {
    const key = storyKey(projectId, storyId);
    await requireStory(store, key);
    const comment = childId(commentId)
      ? await store.comments.find(key.projectId, key.storyId, commentId)
      : undefined;
    if (!comment) throw commentNotFound();
    return comment;
  };
}
