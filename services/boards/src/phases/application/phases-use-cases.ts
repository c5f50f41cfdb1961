import { makeBatchListPhases, type BatchListPhases } from './batch-list-phases';
import { makeCreateBoard, type CreateBoard } from './create-board';
import { makeCreatePhase, type CreatePhase } from './create-phase';
import { makeDeletePhase, type DeletePhase } from './delete-phase';
import { makeGetPhase, type GetPhase } from './get-phase';
import { makeListPhaseStories, type ListPhaseStories } from './list-phase-stories';
import { makeListPhases, type ListPhases } from './list-phases';
import type { PhasesStore } from './phases-store';
import { makeReorderPhaseStories, type ReorderPhaseStories } from './reorder-phase-stories';
import { makeReorderPhases, type ReorderPhases } from './reorder-phases';
import { makeUpdatePhase, type UpdatePhase } from './update-phase';

/** A board and its phases (docs/compat.md §5.4): what PhasesService serves. */
export interface PhasesUseCases {
  createBoard: CreateBoard;
  listPhases: ListPhases;
  batchListPhases: BatchListPhases;
  getPhase: GetPhase;
  createPhase: CreatePhase;
  updatePhase: UpdatePhase;
  deletePhase: DeletePhase;
  reorderPhases: ReorderPhases;
  listPhaseStories: ListPhaseStories;
  reorderPhaseStories: ReorderPhaseStories;
}

export const phasesUseCases = (store: PhasesStore): PhasesUseCases => ({
  createBoard: makeCreateBoard(store),
  listPhases: makeListPhases(store),
  batchListPhases: makeBatchListPhases(store),
  getPhase: makeGetPhase(store),
  createPhase: makeCreatePhase(store),
  updatePhase: makeUpdatePhase(store),
  deletePhase: makeDeletePhase(store),
  reorderPhases: makeReorderPhases(store),
  listPhaseStories: makeListPhaseStories(store),
  reorderPhaseStories: makeReorderPhaseStories(store),
});
