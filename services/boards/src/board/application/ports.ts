import type { PhaseTemplate } from '../domain/board';
import type { Store } from './store';

/**
 * What the board's use cases need from the database: board/db implements it over PostgreSQL, the unit tests with
 * fakes.
 */

/** The board row of a project: its story counter and the lock that serialises the board's writes. */
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

/**
 * Savepoints of the current transaction: `within` runs `work` so that, when it throws, what it wrote is undone and
 * the transaction goes on (even after a failed statement), as if it had not run. `mark` tells afterwards whether
 * anything was written (or a statement failed) since: work that threw before writing needs no savepoint. A bulk
 * write's stories are each all or nothing this way, in the one transaction of the request, with a savepoint only
 * for a story that fails after writing (PostgreSQL slows every session down past 64 subtransactions in one).
 */
export interface Savepoints {
  within<T>(work: () => Promise<T>): Promise<T>;
  mark(): { wrote(): boolean };
}

/**
 * A new board's phases, as its creation writes and answers them: phases/'s repository is one (`Phase` is its
 * record). Declared here, beside the board that starts with them, so board/ needs nothing of phases/.
 */
export interface BoardPhases<Phase> {
  insertMany(projectId: number, phases: readonly PhaseTemplate[]): Promise<void>;
  /** By position. Empty when the board does not exist. */
  listByProject(projectId: number): Promise<Phase[]>;
}

/** What the board's own use cases (create, delete) reach. */
export interface BoardRepositories<Phase> {
  boards: BoardRepository;
  phases: BoardPhases<Phase>;
}

export type BoardStore<Phase> = Store<BoardRepositories<Phase>>;
