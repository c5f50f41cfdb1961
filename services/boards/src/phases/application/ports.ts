import type { BoardPhases } from '../../board/application/ports';

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

/** A new board's phases are written and read through it too (CreateBoard, board/). */
export interface PhaseRepository extends BoardPhases<PhaseRecord> {
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
  /** Whether the phase holds any story (a phase holding stories cannot be deleted). */
  holdsStories(projectId: number, phaseId: number): Promise<boolean>;
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
