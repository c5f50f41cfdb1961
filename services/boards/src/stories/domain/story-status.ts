import { DomainError } from '@flowboard/service-kit';
import { BACKLOG_POSITION, statusForPhasePosition, type StoryStatus } from '../../phases/domain/phases';
import { STORY_LIMITS } from './story';

/** The statuses a PUT may set (spec: started, ready, blocked). */
export const SETTABLE_STATUSES: readonly StoryStatus[] = ['started', 'ready', 'blocked'];

export interface StatusState {
  status: StoryStatus;
  blockedReason: string | null;
}

export interface StatusChange {
  /** The phase the story is moving to (position and the board's last position), when it moves. */
  move?: { position: number; lastPosition: number };
  /** Where the story is now (used when it does not move). */
  current: { position: number; lastPosition: number };
  /** `status` from the body, when present. */
  status?: string;
  /** `blockedReason` from the body, when present (null = cleared). */
  blockedReason?: string | null;
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
    const reason = change.blockedReason ?? '';
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
