import { DomainError } from '@flowboard/service-kit';
import type { StepType } from '../../history/domain/steps';
import { STORY_LIMITS, type StoryChanges } from './story';

/**
 * A story's status follows the position of the phase it enters (docs/compat.md §5.3): Backlog (always position 0)
 * planned, Archive (always last) finished, any phase between started; ready and blocked are set by hand.
 */
export type StoryStatus = 'planned' | 'started' | 'ready' | 'blocked' | 'finished';

export const BACKLOG_POSITION = 0;

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

/** The type of the step (history) a story in `status` is in. */
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

/** The statuses a PUT may set (spec: started, ready, blocked). */
export const SETTABLE_STATUSES: readonly StoryStatus[] = ['started', 'ready', 'blocked'];

export interface StatusState {
  status: StoryStatus;
  blockedReason: string | null;
}

/** An update's `status` and `blockedReason` (when present), with where the story is and where it moves. */
export interface StatusChange extends Pick<StoryChanges, 'status' | 'blockedReason'> {
  /** The phase the story is moving to (position and the board's last position), when it moves. */
  move?: { position: number; lastPosition: number };
  /** Where the story is now (used when it does not move). */
  current: { position: number; lastPosition: number };
}

const invalidState = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-state' });

/**
 * The status after an update (docs/compat.md §5.3): a move first sets the automatic status of the phase
 * entered (Backlog planned, middle started, Archive finished; ready/blocked cleared); a `status` is then
 * checked against the (new) phase: only started/ready/blocked, only in a middle phase, else 400
 * `invalid-state`. `blocked` takes the reason from the body (kept if absent); leaving `blocked` clears it; a
 * reason sent when not blocked is ignored.
 */
export function nextStatus(state: StatusState, change: StatusChange): StatusState {
  let { status, blockedReason } = state;
  const where = change.move ?? change.current;
  if (change.move) {
    status = statusForPhasePosition(change.move.position, change.move.lastPosition);
  }
  if (change.status !== undefined) {
    const wanted = change.status.trim().toLowerCase();
    if (!(SETTABLE_STATUSES as readonly string[]).includes(wanted)) {
      throw invalidState(`Invalid status '${change.status}': only started, ready or blocked can be set.`);
    }
    if (where.position === BACKLOG_POSITION || where.position === where.lastPosition) {
      throw invalidState(
        `Invalid status '${wanted}': stories in Backlog or Archive take the phase's status.`,
      );
    }
    status = wanted as StoryStatus;
  }
  if (status !== 'blocked') return { status, blockedReason: null };
  if (change.blockedReason !== undefined) {
    const reason = change.blockedReason;
    if ([...reason].length > STORY_LIMITS.blockedReason)
      throw new DomainError(
        'InvalidArgument',
        `Invalid blockedReason: must be at most ${STORY_LIMITS.blockedReason} characters.`,
        {
          problem: 'invalid-field',
        },
      );
    if (reason.includes('\u0000'))
      throw new DomainError('InvalidArgument', 'Invalid blockedReason: must not contain NUL characters.', {
        problem: 'invalid-field',
      });
    blockedReason = reason;
  }
  return { status, blockedReason: blockedReason ?? '' };
}
