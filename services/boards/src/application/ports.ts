import type { StoryColor } from '../domain/color';
import type { FilterNode } from '../domain/filter';
import type { PhaseTemplate, StepType, StoryStatus } from '../domain/phases';
import type { TaskStatus } from '../domain/tasks';
import type { Outbox, OutboxMessage } from '@flowboard/events';

/** Ports the use cases depend on; src/db implements them over PostgreSQL, unit tests with fakes. */

export interface PhaseRecord {
  id: number;
  projectId: number;
  name: string;
  description: string;
  position: number;
  wipLimit: number | null;
}

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

/** Where a story lands: the phase, and the board's last position (to derive the status). */
export interface PhasePlacement {
  phase: PhaseRecord;
  lastPosition: number;
}

export interface BoardRepository {
  /** Inserts the board row; false when it already existed (another call created it) or the project was deleted. */
  insertIfAbsent(projectId: number): Promise<boolean>;
  /**
   * Takes the next story id of the project, locking the board row until the transaction ends; undefined when
   * the board does not exist. The lock serialises numbering and board ordering per project.
   */
  allocateStoryId(projectId: number): Promise<number | undefined>;
  /** Locks the board row until the transaction ends (moves, reorders); false when the board does not exist. */
  lock(projectId: number): Promise<boolean>;
  /**
   * Deletes the board and everything on it (phases, stories and their children cascade) and records the project
   * as deleted, so `insertIfAbsent` never creates its board again. False when the project was already recorded.
   */
  deleteProject(projectId: number, eventId: string): Promise<boolean>;
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

export interface PhaseRepository {
  insertMany(projectId: number, phases: readonly PhaseTemplate[]): Promise<void>;
  /** By position. Empty when the board does not exist. */
  listByProject(projectId: number): Promise<PhaseRecord[]>;
  /** Each project's phases by position, in one query; a project without a board is not in the map. */
  listByProjects(projectIds: readonly number[]): Promise<Map<number, PhaseRecord[]>>;
  /** The phase with this id in this project (or the Backlog when `phaseId` is 'backlog'); undefined when none. */
  findPlacement(projectId: number, phaseId: number | 'backlog'): Promise<PhasePlacement | undefined>;
  /** The phase with this id in this project; undefined when none. */
  find(projectId: number, phaseId: number): Promise<PhaseRecord | undefined>;
  /** Inserts at `position`, shifting the phases at and after it up by one. Call under the board row lock. */
  insertAt(projectId: number, phase: NewPhaseRecord): Promise<PhaseRecord>;
  /**
   * Writes name, description and limit, and moves the phase to `position` shifting the phases in between.
   * Call under the board row lock.
   */
  update(projectId: number, phaseId: number, write: PhaseWrite): Promise<PhaseRecord>;
  /** Deletes the phase and closes the gap. False when there was no such phase. Call under the board row lock. */
  delete(projectId: number, phaseId: number): Promise<boolean>;
  /** Gives the phases the positions of their order in `phaseIds` (every phase, validated). */
  reorder(projectId: number, phaseIds: readonly number[]): Promise<void>;
}

export interface NewPhaseRecord {
  name: string;
  description: string;
  position: number;
  wipLimit: number | null;
}

export interface PhaseWrite {
  name: string;
  description: string;
  position: number;
  wipLimit: number | null;
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
  /** False when there was no such story. */
  delete(projectId: number, storyId: number): Promise<boolean>;
  /** The ids of the matching stories in board order (no paging). */
  matchingIds(projectId: number, query: Pick<StoryQuery, 'filter' | 'users'>): Promise<number[]>;
  /** The ids of a phase's stories in board order. */
  idsInPhase(projectId: number, phaseId: number): Promise<number[]>;
  /** Renumbers a phase's stories 1..n in the order of `storyIds` (exactly the phase's stories, validated). */
  reorderInPhase(projectId: number, phaseId: number, storyIds: readonly number[]): Promise<void>;
  /** Whether the phase holds any story. */
  anyInPhase(projectId: number, phaseId: number): Promise<boolean>;
}

export interface StoryHistoryRepository {
  openMilestone(entry: { projectId: number; storyId: number; phaseId: number; at: Date }): Promise<void>;
  openStep(entry: { projectId: number; storyId: number; type: StepType; at: Date }): Promise<void>;
  /** Closes the open milestone and opens one in `phaseId`, both at the transaction's time. */
  moveMilestone(entry: { projectId: number; storyId: number; phaseId: number }): Promise<void>;
  /** Closes the open step and opens one of `type`, both at the transaction's time. */
  changeStep(entry: { projectId: number; storyId: number; type: StepType }): Promise<void>;
}

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
  /** Every task of these stories, by story then position. */
  listForStories(projectId: number, storyIds: readonly number[]): Promise<TaskRecord[]>;
  find(projectId: number, storyId: number, taskId: number): Promise<TaskRecord | undefined>;
  /** Appends after the story's last task. Call under the story lock. */
  append(projectId: number, storyId: number, write: TaskWrite): Promise<TaskRecord>;
  update(projectId: number, storyId: number, taskId: number, write: TaskWrite): Promise<TaskRecord>;
  /** False when there was no such task. */
  delete(projectId: number, storyId: number, taskId: number): Promise<boolean>;
  /** The story's task ids by position. */
  ids(projectId: number, storyId: number): Promise<number[]>;
  /** Renumbers the story's tasks 1..n in the order of `taskIds` (exactly the story's tasks, validated). */
  reorder(projectId: number, storyId: number, taskIds: readonly number[]): Promise<void>;
}

export interface CommentRecord {
  id: number;
  projectId: number;
  storyId: number;
  authorId: number;
  text: string;
  createdAt: Date;
}

export interface CommentRepository {
  /** A page by create time then id, and the story's comment count. */
  list(
    projectId: number,
    storyId: number,
    offset: number,
    limit: number,
  ): Promise<{ comments: CommentRecord[]; total: number }>;
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

// The outbox port is shared by every publishing service (@flowboard/events).
export type { Outbox, OutboxMessage };

export interface TagRecord {
  id: number;
  projectId: number;
  name: string;
}

/** A story carrying a tag, as the tag's `stories` enrichment shows it. */
export interface TaggedStory {
  tagId: number;
  storyId: number;
  text: string;
}

export interface TagRepository {
  /** A page by id and the project's tag count. */
  list(projectId: number, offset: number, limit: number): Promise<{ tags: TagRecord[]; total: number }>;
  find(projectId: number, tagId: number): Promise<TagRecord | undefined>;
  /** By name, ignoring case. */
  findByName(projectId: number, name: string): Promise<TagRecord | undefined>;
  findByIds(projectId: number, tagIds: readonly number[]): Promise<TagRecord[]>;
  /** Locks the tag row (FOR NO KEY UPDATE) until the transaction ends; false when there is no such tag. */
  lock(projectId: number, tagId: number): Promise<boolean>;
  /** Inserts a tag; a name taken (ignoring case) → Conflict, no board → NotFound. */
  insert(projectId: number, name: string): Promise<TagRecord>;
  /** The tag with this name (ignoring case), created when there is none; safe against concurrent creates. */
  ensure(projectId: number, name: string): Promise<TagRecord>;
  /** Undefined when there is no such tag; a name taken by another tag → Conflict. */
  rename(projectId: number, tagId: number, name: string): Promise<TagRecord | undefined>;
  /** False when there was no such tag. Its links go with it (ON DELETE CASCADE). */
  delete(projectId: number, tagId: number): Promise<boolean>;
  /** Locks the story row (FOR NO KEY UPDATE) until the transaction ends; false when there is no such story. */
  lockStory(projectId: number, storyId: number): Promise<boolean>;
  /** Which of these story ids exist in the project. */
  existingStoryIds(projectId: number, storyIds: readonly number[]): Promise<number[]>;
  /** The ids of the stories carrying the tag. */
  storyIds(projectId: number, tagId: number): Promise<number[]>;
  /** `{id, text}` of the stories carrying each of these tags, by tag, then in board order. */
  storiesOfTags(projectId: number, tagIds: readonly number[]): Promise<TaggedStory[]>;
  /** A page of the story's tags by id, and their count. */
  listForStory(
    projectId: number,
    storyId: number,
    offset: number,
    limit: number,
  ): Promise<{ tags: TagRecord[]; total: number }>;
  /** The tags of these stories, by story then tag id. */
  listForStories(
    projectId: number,
    storyIds: readonly number[],
  ): Promise<Array<{ storyId: number; tag: TagRecord }>>;
  /** Puts the tags on the story (already there: no-op). */
  link(projectId: number, storyId: number, tagIds: readonly number[]): Promise<void>;
  /** Makes `tagIds` exactly the story's tags. */
  replaceStoryTags(projectId: number, storyId: number, tagIds: readonly number[]): Promise<void>;
  /** Puts the tag on the stories (already there: no-op). */
  linkStories(projectId: number, tagId: number, storyIds: readonly number[]): Promise<void>;
  /** Makes `storyIds` exactly the stories carrying the tag. */
  replaceTagStories(projectId: number, tagId: number, storyIds: readonly number[]): Promise<void>;
  /** False when the story did not carry the tag. */
  unlink(projectId: number, storyId: number, tagId: number): Promise<boolean>;
}

export interface BoardsRepositories {
  boards: BoardRepository;
  outbox: Outbox;
  phases: PhaseRepository;
  stories: StoryRepository;
  history: StoryHistoryRepository;
  tasks: TaskRepository;
  comments: CommentRepository;
  tags: TagRepository;
}

/** The repositories bound to the pool for reads, plus `transaction` to run several writes atomically. */
export interface BoardsStore extends BoardsRepositories {
  transaction<T>(work: (tx: BoardsRepositories) => Promise<T>): Promise<T>;
}
