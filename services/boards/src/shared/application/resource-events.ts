import { actorKeyOf } from '@flowboard/service-kit';
import {
  resourceChangedMessage,
  resourceSubject,
  type Outbox,
  type OutboxMessage,
  type ResourceEventType,
} from '@flowboard/events';

/** Boards' outbox: one event at a time, or a set-based write's events in one statement. */
export interface BoardsOutbox extends Outbox {
  enqueueAll(messages: readonly OutboxMessage[]): Promise<void>;
}

/** What boards publishes: changes to stories and to what hangs off them (tasks, comments, tag links). */
export type StoryEventType = Extract<
  ResourceEventType,
  `story.${string}` | `task.${string}` | `comment.${string}`
>;

export interface StoryResourceChange {
  projectId: number;
  /** The story the change is about: the event's subject, so a story's changes reach a webhook in order. */
  storyId: number;
  /** The caller who made the change. */
  actorId: number;
  type: StoryEventType;
  /** The resource's gRPC message, by the mapper that answers it: after the change, before it for a deletion. */
  resource: object;
}

/**
 * Writes a `flowboard.resource-changed.v1` event to the outbox of the transaction `outbox` is bound to, so it is
 * published if and only if the change commits.
 */
export function publishStoryChange(outbox: Outbox, change: StoryResourceChange): Promise<void> {
  return outbox.enqueue(storyChangeMessage(change));
}

/** Several stories' events, in this order, in one statement (a set-based write's). */
export function publishStoryChanges(
  outbox: BoardsOutbox,
  changes: readonly StoryResourceChange[],
): Promise<void> {
  return outbox.enqueueAll(changes.map(storyChangeMessage));
}

function storyChangeMessage(change: StoryResourceChange): OutboxMessage {
  const { projectId, actorId, type, resource } = change;
  return message({ projectId, actorId, type, subject: resourceSubject('story', change.storyId), resource });
}

/** Changes to the board itself: its phases (columns) and its tags. */
export type BoardEventType = Extract<ResourceEventType, `phase.${string}` | `tag.${string}`>;

export interface BoardResourceChange {
  projectId: number;
  actorId: number;
  type: BoardEventType;
  /** The phase's or tag's id: the event's subject. */
  id: number;
  /** The phase or tag message, by the mapper that answers it: after the change, before it for a deletion. */
  resource: object;
}

/**
 * Writes a phase's or a tag's `flowboard.resource-changed.v1` event to the transaction's outbox. Its subject is the
 * phase or tag, so a webhook gets one phase's (one tag's) changes in order.
 */
export function publishBoardChange(outbox: Outbox, change: BoardResourceChange): Promise<void> {
  const { projectId, actorId, type, resource } = change;
  const kind = type.startsWith('phase.') ? 'phase' : 'tag';
  return outbox.enqueue(
    message({ projectId, actorId, type, subject: resourceSubject(kind, change.id), resource }),
  );
}

/** Boards' resource-changed event, for the outbox of the change's transaction. */
function message(change: {
  projectId: number;
  actorId: number;
  type: ResourceEventType;
  subject: string;
  resource: object;
}): OutboxMessage {
  // A proto message is a plain object; its interface just has no index signature.
  const resource = change.resource as Record<string, unknown>;
  return resourceChangedMessage('boards', { ...change, ...actorKeyOf(change.actorId), resource });
}

/** Wakes the outbox relay once a transaction that wrote events has committed (it publishes now, not later). */
export type OutboxSignal = () => void;

export const noSignal: OutboxSignal = () => undefined;

/** Who made a change: the user, and the API key they made it with (its name as it was then), when known. */
export interface ChangeAuthor {
  userId: number;
  apiKey?: { id: number; name: string };
}

/**
 * The author of a change `actorId` makes now: the API key is the request's being served, the one its event names
 * (`actorKeyOf`), so a story's history and its change events say the same.
 */
export function changeAuthor(actorId: number): ChangeAuthor {
  const { actorKey } = actorKeyOf(actorId);
  return { userId: actorId, ...(actorKey ? { apiKey: actorKey } : {}) };
}
