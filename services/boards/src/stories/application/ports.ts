import type { FilterNode } from '../../shared/domain/filter';
import type { StoryStatus } from '../../phases/domain/phases';
import type { StoryColor } from '../domain/color';

/**
 * What the story use cases need from the database: stories/db implements it over PostgreSQL, the unit
 * tests with fakes.
 */

export interface StoryRecord {
  projectId: number;
  id: number;
  text: string;
  details: string;
  size: string;
  priority: string;
  color: StoryColor;
  status: StoryStatus;
  blockedReason: string | null;
  phase: { id: number; name: string };
  boardPosition: number;
  creatorId: number;
  ownerId: number | null;
  deadline: Date | null;
  createdAt: Date;
  /** Kept by the database (migration 0009): 1 when created, +1 with each change of what the API shows. */
  version: number;
}

export interface NewStoryRecord {
  projectId: number;
  id: number;
  text: string;
  details: string;
  size: string;
  priority: string;
  color: StoryColor;
  status: StoryStatus;
  phaseId: number;
  boardPosition: number;
  creatorId: number;
  ownerId: number | null;
  deadline: Date | null;
}

/** A project member a filter may name by username or display name (owner:, creator:). */
export interface UserAlias {
  id: number;
  user_name: string;
  name: string;
}

export interface StoryQuery {
  filter?: FilterNode;
  /** Only the stories of this phase. */
  phaseId?: number;
  /** Only these stories. */
  ids?: readonly number[];
  users: readonly UserAlias[];
  offset: number;
  limit: number;
}

/** The fields an update writes (already validated); the repository writes them all. */
export interface StoryWrite {
  text: string;
  details: string;
  size: string;
  priority: string;
  color: StoryColor;
  status: StoryStatus;
  blockedReason: string | null;
  phaseId: number;
  boardPosition: number;
  ownerId: number | null;
  deadline: Date | null;
}

export interface StoryRepository {
  /** The position just below the phase's last story. Call under the board row lock. */
  nextBoardPosition(projectId: number, phaseId: number): Promise<number>;
  insert(story: NewStoryRecord): Promise<StoryRecord>;
  find(projectId: number, storyId: number): Promise<StoryRecord | undefined>;
  /** Those of `storyIds` that exist, in no particular order. */
  findMany(projectId: number, storyIds: readonly number[]): Promise<StoryRecord[]>;
  /** The story locked for update (FOR UPDATE), with its phase's position. */
  findForUpdate(
    projectId: number,
    storyId: number,
  ): Promise<{ story: StoryRecord; phasePosition: number; lastPosition: number } | undefined>;
  /** A page in board order (phase position, board position) and the exact number of matches. */
  list(projectId: number, query: StoryQuery): Promise<{ stories: StoryRecord[]; total: number }>;
  update(projectId: number, storyId: number, write: StoryWrite): Promise<StoryRecord>;
  /** The story as it was before the delete; undefined when there was no such story. */
  delete(projectId: number, storyId: number): Promise<StoryRecord | undefined>;
  /** The ids of the matching stories in board order (no paging). */
  matchingIds(projectId: number, query: Pick<StoryQuery, 'filter' | 'users'>): Promise<number[]>;
  /** The ids of a phase's stories in board order. */
  idsInPhase(projectId: number, phaseId: number): Promise<number[]>;
  /** Renumbers a phase's stories 1..n in the order of `storyIds` (exactly the phase's stories, validated). */
  reorderInPhase(projectId: number, phaseId: number, storyIds: readonly number[]): Promise<void>;
  /** Whether the phase holds any story. */
  anyInPhase(projectId: number, phaseId: number): Promise<boolean>;
}

/** /me/stories: one user's stories across projects (no board lock, no transaction: a read on the pool). */
export interface OwnedStoriesReader {
  /**
   * A page of the stories `ownerId` owns in these projects, in project id, phase index, board position order,
   * and the number of matches. `limit` null = every match.
   */
  listOwned(query: {
    ownerId: number;
    projectIds: readonly number[];
    filter?: FilterNode;
    offset: number;
    limit: number | null;
  }): Promise<{ stories: StoryRecord[]; total: number }>;
}
