import type { KeysetPage, KeysetWindow } from '../../shared/application/list-window';
import type { TaskStatus } from '../domain/tasks';

/**
 * What the task use cases need from the database: tasks/db implements it over PostgreSQL, the unit
 * tests with fakes.
 */

export interface TaskRecord {
  id: number;
  projectId: number;
  storyId: number;
  text: string;
  status: TaskStatus;
  position: number;
  createdAt: Date;
  finishedAt: Date | null;
  finishedBy: number | null;
  /** Kept by the database (migration 0009): 1 when created, +1 with each change of what the API shows. */
  version: number;
}

/** What a task write stores (validated; status and finish fields consistent). */
export interface TaskWrite {
  text: string;
  status: TaskStatus;
  finishedAt: Date | null;
  finishedBy: number | null;
}

export interface TaskRepository {
  /**
   * Locks the story row (FOR NO KEY UPDATE) until the transaction ends, so task writes of one story queue up
   * (appends and reorders number positions); false when there is no such story.
   */
  lockStory(projectId: number, storyId: number): Promise<boolean>;
  /** A page by position and the story's task count. */
  list(
    projectId: number,
    storyId: number,
    offset: number,
    limit: number,
  ): Promise<{ tasks: TaskRecord[]; total: number }>;
  /** A keyset page in id order and the story's task count. */
  listById(
    projectId: number,
    storyId: number,
    window: KeysetWindow,
  ): Promise<KeysetPage<{ tasks: TaskRecord[] }>>;
  /** Every task of these stories, by story then position. */
  listForStories(projectId: number, storyIds: readonly number[]): Promise<TaskRecord[]>;
  find(projectId: number, storyId: number, taskId: number): Promise<TaskRecord | undefined>;
  /** Appends after the story's last task. Call under the story lock. */
  append(projectId: number, storyId: number, write: TaskWrite): Promise<TaskRecord>;
  update(projectId: number, storyId: number, taskId: number, write: TaskWrite): Promise<TaskRecord>;
  /** The task as it was before the delete; undefined when there was no such task. */
  delete(projectId: number, storyId: number, taskId: number): Promise<TaskRecord | undefined>;
  /** The story's task ids by position. */
  ids(projectId: number, storyId: number): Promise<number[]>;
  /** Renumbers the story's tasks 1..n in the order of `taskIds` (exactly the story's tasks, validated). */
  reorder(projectId: number, storyId: number, taskIds: readonly number[]): Promise<void>;
}
