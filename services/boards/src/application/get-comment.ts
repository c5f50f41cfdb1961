import { DomainError } from '@flowboard/service-kit';
import type { BoardsStore, CommentRecord } from './ports';
import { childId, requireStory, storyKey } from './story-children';

export type GetComment = (projectId: number, storyId: number, commentId: number) => Promise<CommentRecord>;

export const commentNotFound = () => new DomainError('NotFound', 'Comment not found');

export function makeGetComment(store: BoardsStore): GetComment {
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
