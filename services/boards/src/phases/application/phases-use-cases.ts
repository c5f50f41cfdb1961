import { makeCreateBoard, type CreateBoard } from '../../board/application/create-board';
import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import { makeBatchListPhases, type BatchListPhases } from './batch-list-phases';
import { makeCreatePhase, type CreatePhase } from './create-phase';
import { makeDeletePhase, type DeletePhase } from './delete-phase';
import { makeGetPhase, type GetPhase } from './get-phase';
import { makeListPhases, type ListPhases } from './list-phases';
import type { PhasesStore } from './phases-store';
import type { PhaseRecord } from './ports';
import { makeReorderPhases, type ReorderPhases } from './reorder-phases';
import { makeUpdatePhase, type UpdatePhase } from './update-phase';

/**
 * A board's phases (docs/compat.md §5.4): what PhasesService serves, but for a phase's stories, which stories/
 * serves (stories sit above phases). CreateBoard is the board's (board/), answered with the new board's phases.
 */
export interface PhasesUseCases {
  createBoard: CreateBoard<PhaseRecord>;
  listPhases: ListPhases;
  batchListPhases: BatchListPhases;
  getPhase: GetPhase;
  createPhase: CreatePhase;
  updatePhase: UpdatePhase;
  deletePhase: DeletePhase;
  reorderPhases: ReorderPhases;
}

/** `signal` wakes the outbox relay after a write that published `phase.*` events has committed. */
export const phasesUseCases = (store: PhasesStore, signal: OutboxSignal = noSignal): PhasesUseCases => ({
  createBoard: makeCreateBoard(store),
  listPhases: makeListPhases(store),
  batchListPhases: makeBatchListPhases(store),
  getPhase: makeGetPhase(store),
  createPhase: makeCreatePhase(store, signal),
  updatePhase: makeUpdatePhase(store, signal),
  deletePhase: makeDeletePhase(store, signal),
  reorderPhases: makeReorderPhases(store, signal),
});
