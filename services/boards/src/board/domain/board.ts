/**
 * A project's board: created with the project (CreateBoard) with the phases below, deleted with it. Backlog is
 * always its first phase and Archive its last (spec, "Phase" rules); phases/ keeps them there.
 */

export interface PhaseTemplate {
  name: string;
  description: string;
}

/** The phases every new board starts with, at positions 0–4 (docs/compat.md §5.4). */
export const DEFAULT_PHASES: readonly PhaseTemplate[] = Object.freeze([
  { name: 'Backlog', description: 'Stories that will be worked on someday' },
  { name: 'Ready', description: 'Stories that are ready to be worked on' },
  { name: 'Working', description: 'Stories that are currently being worked on' },
  { name: 'Complete', description: 'Stories that have been completed' },
  { name: 'Archive', description: 'Stories that are history' },
]);
