import type { StoryColor } from '../domain/color';
import type { PhaseTemplate, StepType, StoryStatus } from '../domain/phases';

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
  updatedAt: Date;
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
  /** Inserts the board row; false when it already existed (another call created it). */
  insertIfAbsent(projectId: number): Promise<boolean>;
  /**
   * Takes the next story id of the project, locking the board row until the transaction ends; undefined when
   * the board does not exist. The lock serialises numbering and board ordering per project.
   */
  allocateStoryId(projectId: number): Promise<number | undefined>;
}

export interface PhaseRepository {
  insertMany(projectId: number, phases: readonly PhaseTemplate[]): Promise<void>;
  /** By position. Empty when the board does not exist. */
  listByProject(projectId: number): Promise<PhaseRecord[]>;
  /** The phase with this id in this project (or the Backlog when `phaseId` is 'backlog'); undefined when none. */
  findPlacement(projectId: number, phaseId: number | 'backlog'): Promise<PhasePlacement | undefined>;
}

export interface StoryRepository {
  /** The position just below the phase's last story. Call under the board row lock. */
  nextBoardPosition(projectId: number, phaseId: number): Promise<number>;
  insert(story: NewStoryRecord): Promise<StoryRecord>;
  find(projectId: number, storyId: number): Promise<StoryRecord | undefined>;
}

export interface StoryHistoryRepository {
  openMilestone(entry: { projectId: number; storyId: number; phaseId: number; at: Date }): Promise<void>;
  openStep(entry: { projectId: number; storyId: number; type: StepType; at: Date }): Promise<void>;
}

export interface BoardsRepositories {
  boards: BoardRepository;
  phases: PhaseRepository;
  stories: StoryRepository;
  history: StoryHistoryRepository;
}

/** The repositories bound to the pool for reads, plus `transaction` to run several writes atomically. */
export interface BoardsStore extends BoardsRepositories {
  transaction<T>(work: (tx: BoardsRepositories) => Promise<T>): Promise<T>;
}
