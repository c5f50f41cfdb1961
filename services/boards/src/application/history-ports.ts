import type { FilterNode } from '../domain/filter';
import type { StepType } from '../domain/phases';
import type { StoryRecord } from './ports';

/** Read side of story history (milestones, steps) for the enrichments and metrics; src/db implements it. */

export interface MilestoneRecord {
  id: number;
  storyId: number;
  phase: { id: number; name: string };
  start: Date;
  /** null while open. */
  end: Date | null;
}

export interface StepRecord {
  id: number;
  storyId: number;
  type: StepType;
  start: Date;
  end: Date | null;
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
