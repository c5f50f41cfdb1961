import type { KeysetPage, KeysetWindow } from '../../shared/application/list-window';

/**
 * What the comment use cases need from the database: comments/db implements it over PostgreSQL, the unit
 * tests with fakes.
 */

export interface CommentRecord {
  id: number;
  projectId: number;
  storyId: number;
  authorId: number;
  text: string;
  createdAt: Date;
  /** Kept by the database (migration 0009): 1 when created, +1 with each change of its text. */
  version: number;
}

export interface CommentRepository {
  /** A page by create time then id, and the story's comment count. */
  list(
    projectId: number,
    storyId: number,
    offset: number,
    limit: number,
  ): Promise<{ comments: CommentRecord[]; total: number }>;
  /** A keyset page in id order and the story's comment count. */
  listById(
    projectId: number,
    storyId: number,
    window: KeysetWindow,
  ): Promise<KeysetPage<{ comments: CommentRecord[] }>>;
  /** Every comment of these stories, by story, create time, id. */
  listForStories(projectId: number, storyIds: readonly number[]): Promise<CommentRecord[]>;
  find(projectId: number, storyId: number, commentId: number): Promise<CommentRecord | undefined>;
  /** The comment locked for update. */
  findForUpdate(projectId: number, storyId: number, commentId: number): Promise<CommentRecord | undefined>;
  insert(comment: {
    projectId: number;
    storyId: number;
    authorId: number;
    text: string;
  }): Promise<CommentRecord>;
  updateText(projectId: number, storyId: number, commentId: number, text: string): Promise<CommentRecord>;
  delete(projectId: number, storyId: number, commentId: number): Promise<boolean>;
}
