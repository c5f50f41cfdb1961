import {
  resourceChangedMessage,
  resourceSubject,
  type Outbox,
  type ResourceEventType,
} from '@flowboard/events';

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
  return outbox.enqueue(
    resourceChangedMessage('boards', {
      projectId: change.projectId,
      actorId: change.actorId,
      type: change.type,
      subject: resourceSubject('story', change.storyId),
      // A proto message is a plain object; its interface just has no index signature.
      resource: change.resource as Record<string, unknown>,
    }),
  );
}

/** Wakes the outbox relay once a transaction that wrote events has committed (it publishes now, not later). */
export type OutboxSignal = () => void;

export const noSignal: OutboxSignal = () => undefined;
