import type { FilterNode } from '../../shared/domain/filter';
import type { StoryStatus } from '../domain/story-status';
import type { StoryColor } from '../domain/color';
import type { SyncPosition } from '../domain/sync-position';

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
  /** The story goes below the phase's last story (placed by the insert itself, under the board row lock). */
  phaseId: number;
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
  /** 'bottom': below the last story of `phaseId`, placed by the update itself (call under the board row lock). */
  boardPosition: number | 'bottom';
  ownerId: number | null;
  deadline: Date | null;
}

export interface LockedStory {
  story: StoryRecord;
  phasePosition: number;
  lastPosition: number;
  /** The phase a move goes to, when one was asked for: null when it is not one of the project's. */
  target?: { id: number; position: number } | null;
}

export interface StoryRepository {
  /** Inserts the story below its phase's last one. Call under the board row lock. */
  insert(story: NewStoryRecord): Promise<StoryRecord>;
  find(projectId: number, storyId: number): Promise<StoryRecord | undefined>;
  /** Those of `storyIds` that exist, in no particular order. */
  findMany(projectId: number, storyIds: readonly number[]): Promise<StoryRecord[]>;
  /**
   * The story locked for update (FOR UPDATE), with its phase's position and the board's last position; with
   * `movingTo`, also that phase's position (`target`, null when the project has no such phase).
   */
  findForUpdate(projectId: number, storyId: number, movingTo?: number): Promise<LockedStory | undefined>;
  /** `findForUpdate` for several stories in one statement, by story id; the missing ones are absent. */
  findManyForUpdate(
    projectId: number,
    wanted: ReadonlyArray<{ storyId: number; movingTo?: number }>,
  ): Promise<Map<number, LockedStory>>;
  /** A page in board order (phase position, board position) and the exact number of matches. */
  list(projectId: number, query: StoryQuery): Promise<{ stories: StoryRecord[]; total: number }>;
  update(projectId: number, storyId: number, write: StoryWrite): Promise<StoryRecord>;
  /**
   * `update` for several existing (locked) stories in one statement; the stories as updated, in the order given.
   * Stories going to the 'bottom' of the same phase land there in that order.
   */
  updateMany(
    projectId: number,
    writes: ReadonlyArray<{ storyId: number; write: StoryWrite }>,
  ): Promise<StoryRecord[]>;
  /** The story as it was before the delete; undefined when there was no such story. */
  delete(projectId: number, storyId: number): Promise<StoryRecord | undefined>;
  /** The ids of the matching stories in board order (no paging). */
  matchingIds(projectId: number, query: Pick<StoryQuery, 'filter' | 'users'>): Promise<number[]>;
  /** The ids of a phase's stories in board order. */
  idsInPhase(projectId: number, phaseId: number): Promise<number[]>;
  /** Renumbers a phase's stories 1..n in the order of `storyIds` (exactly the phase's stories, validated). */
  reorderInPhase(projectId: number, phaseId: number, storyIds: readonly number[]): Promise<void>;
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
  /**
   * Up to `limit` of those stories after (`afterId`, `afterProjectId`) in (id, project id) order, whether more
   * follow, and the number of matches. Story ids are numbered per project, so the project breaks their ties.
   */
  listOwnedById(query: {
    ownerId: number;
    projectIds: readonly number[];
    filter?: FilterNode;
    afterId: number;
    afterProjectId: number;
    limit: number;
  }): Promise<{ stories: StoryRecord[]; total: number; more: boolean }>;
}

/**
 * Cursor pages and updatedSince (README "Sync: cursors and updatedSince"): stories in id order, which never changes
 * while a walk runs (board order does), read on the pool in one statement per page.
 */
export interface StoryPagesReader {
  /** Up to `limit` matches after `afterId` in id order, whether more follow, and the number of matches. */
  byId(
    projectId: number,
    query: {
      filter?: FilterNode;
      users: readonly UserAlias[];
      /** Only the stories of this phase. */
      phaseId?: number;
      /** Only the stories carrying this tag (not with `phaseId`). */
      tagId?: number;
      afterId: number;
      limit: number;
    },
  ): Promise<{ stories: StoryRecord[]; total: number; more: boolean }>;
  /**
   * Up to `limit` changes after `afterId` in id order: the stories changed since the snapshot `since` did not see
   * (every story when null), with the tombstones of those deleted since; the position (snapshot) of this read.
   */
  changes(
    projectId: number,
    query: { since: SyncPosition | null; afterId: number; limit: number },
  ): Promise<StoryChanges>;
}

export interface StoryTombstone {
  id: number;
  deletedAt: Date;
}

export type StoryChanges =
  | {
      /** Ids interleave: both lists together are the page, in id order. */
      stories: StoryRecord[];
      deleted: StoryTombstone[];
      total: number;
      more: boolean;
      position: SyncPosition;
    }
  /** `since` can no longer be served (the gateway's 410), and why. */
  | { gone: string };
