import type { ResourceEventType } from '@flowboard/events';
import type { StoryStatus } from './story-status';

/** What a story shows that an update can change (ids, creator and creation time never change). */
export interface StoryShownState {
  text: string;
  details: string;
  size: string;
  priority: string;
  color: string;
  status: StoryStatus;
  blockedReason: string | null;
  phase: { id: number };
  ownerId: number | null;
  deadline: Date | null;
}

export type StoryUpdateEventType = Extract<
  ResourceEventType,
  'story.updated' | 'story.moved' | 'story.blocked' | 'story.unblocked'
>;

const sameTime = (a: Date | null, b: Date | null) =>
  a === null || b === null ? a === b : a.getTime() === b.getTime();

/**
 * The events one update of a story publishes, in this order: `story.updated` (a shown field changed other than
 * the phase and the blocking), `story.moved` (the phase changed), then `story.blocked` or `story.unblocked` (the
 * status became or stopped being `blocked`). Nothing changed: none.
 *
 * The status has no event of its own: a move sets it (part of `story.moved`), entering or leaving `blocked` is
 * (un)blocking, and the rest (started ↔ ready in place) is `story.updated`, as is a new reason while blocked.
 */
export function storyUpdateEvents(before: StoryShownState, after: StoryShownState): StoryUpdateEventType[] {
  const moved = before.phase.id !== after.phase.id;
  const wasBlocked = before.status === 'blocked';
  const isBlocked = after.status === 'blocked';
  const fieldChanged =
    before.text !== after.text ||
    before.details !== after.details ||
    before.size !== after.size ||
    before.priority !== after.priority ||
    before.color !== after.color ||
    before.ownerId !== after.ownerId ||
    !sameTime(before.deadline, after.deadline);
  const statusInPlace = !moved && !wasBlocked && !isBlocked && before.status !== after.status;
  const reasonWhileBlocked = wasBlocked && isBlocked && before.blockedReason !== after.blockedReason;

  const events: StoryUpdateEventType[] = [];
  if (fieldChanged || statusInPlace || reasonWhileBlocked) events.push('story.updated');
  if (moved) events.push('story.moved');
  if (isBlocked && !wasBlocked) events.push('story.blocked');
  if (wasBlocked && !isBlocked) events.push('story.unblocked');
  return events;
}
