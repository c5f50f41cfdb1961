import type { ChangeAuthor } from '../../shared/application/resource-events';
import type { StepType } from '../domain/steps';

/**
 * Story history: milestones (stays in a phase) and steps (periods in a status); the open one has no end time.
 * The story use cases write it in their transactions (StoryHistoryRepository); the history use cases read it
 * for the enrichments and metrics (StoryHistoryReader). history/db implements both over PostgreSQL.
 */

export type { ChangeAuthor };

export interface StoryHistoryRepository {
  /** A new story's first milestone (in `phaseId`) and first step (of `stepType`), both from `at`, by `author`. */
  open(entry: {
    projectId: number;
    storyId: number;
    phaseId: number;
    stepType: StepType;
    at: Date;
    author: ChangeAuthor;
  }): Promise<void>;
  /**
   * With `phaseId`, closes the open milestone and opens one in that phase; with `stepType`, closes the open step
   * and opens one of that type; all at the transaction's time. Nothing without either.
   */
  transition(entry: {
    projectId: number;
    storyId: number;
    phaseId?: number;
    stepType?: StepType;
    /** Who made the change: recorded on the milestone and step it opens. */
    author: ChangeAuthor;
  }): Promise<void>;
  /** `transition` for several stories of one project, by one author, in one statement. */
  transitionMany(
    projectId: number,
    transitions: ReadonlyArray<{ storyId: number; phaseId?: number; stepType?: StepType }>,
    author: ChangeAuthor,
  ): Promise<void>;
}

export interface MilestoneRecord {
  id: number;
  storyId: number;
  phase: { id: number; name: string };
  start: Date;
  /** null while open. */
  end: Date | null;
  /** Who made the change that opened it; absent for history recorded before authors were. */
  author?: ChangeAuthor;
}

export interface StepRecord {
  id: number;
  storyId: number;
  type: StepType;
  start: Date;
  end: Date | null;
  author?: ChangeAuthor;
}

/** A story that is in Archive and entered it at `finishTime`, with its steps (oldest first). */
export interface FinishedStoryHistory {
  projectId: number;
  storyId: number;
  createdAt: Date;
  steps: StepRecord[];
}

export interface StoryHistoryReader {
  /** The milestones of these stories, by story then id (oldest first). */
  milestonesFor(projectId: number, storyIds: readonly number[]): Promise<MilestoneRecord[]>;
  /** The steps of these stories, by story then id (oldest first). */
  stepsFor(projectId: number, storyIds: readonly number[]): Promise<StepRecord[]>;
  /** Creation times of these stories (metrics need them; the enrichment may come without the story). */
  createdAtFor(projectId: number, storyIds: readonly number[]): Promise<Map<number, Date>>;
  /** The stories of these projects whose open step is `archive` and started at or after `since`, with steps. */
  finishedSince(projectIds: readonly number[], since: Date): Promise<FinishedStoryHistory[]>;
}
