/**
 * Phases (board columns). Backlog is always first and Archive always last (spec, "Phase" rules); a story's
 * status follows the position of the phase it enters (docs/compat.md §5.3).
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

export const BACKLOG_POSITION = 0;

export type StoryStatus = 'planned' | 'started' | 'ready' | 'blocked' | 'finished';

/** The status a story takes when it enters the phase at `position` of a board whose last position is `lastPosition`. */
export function statusForPhasePosition(position: number, lastPosition: number): StoryStatus {
  if (
    !Number.isInteger(position) ||
    !Number.isInteger(lastPosition) ||
    position < 0 ||
    position > lastPosition
  ) {
    throw new RangeError(`phase position ${position} is outside 0..${lastPosition}`);
  }
  if (position === BACKLOG_POSITION) return 'planned';
  if (position === lastPosition) return 'finished';
  return 'started';
}

export type StepType = 'backlog' | 'working' | 'ready' | 'blocked' | 'archive';

/** A step is one period in one status (docs/compat.md §5.3, "Steps"). */
export function stepTypeForStatus(status: StoryStatus): StepType {
  switch (status) {
    case 'planned':
      return 'backlog';
    case 'started':
      return 'working';
    case 'ready':
      return 'ready';
    case 'blocked':
      return 'blocked';
    case 'finished':
      return 'archive';
  }
}
