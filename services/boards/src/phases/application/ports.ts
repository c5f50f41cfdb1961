import type { PhaseTemplate } from '../domain/phases';

/**
 * What the phase use cases need from the database: phases/db implements it over PostgreSQL, the unit
 * tests with fakes.
 */

export interface PhaseRecord {
  id: number;
  projectId: number;
  name: string;
  description: string;
  position: number;
  wipLimit: number | null;
  /** Kept by the database (migration 0009): 1 when created, +1 with each change of what the API shows. */
  version: number;
}

/** Where a story lands: the phase, and the board's last position (to derive the status). */
export interface PhasePlacement {
  phase: PhaseRecord;
  lastPosition: number;
}

/** The board row of a project: its story counter and the lock that serialises the board's moves. */
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
