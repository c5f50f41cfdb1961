import { z } from 'zod';
import { defineEvent, makeEvent, messageJson, OPEN_ENUM, validateEvent, type Envelope } from './envelope';
import type { OutboxMessage } from './outbox';

/**
 * What webhooks can subscribe to. `<resource>.<change>`; a story's move between phases and its (un)blocking are
 * their own types besides `story.updated`, so a subscriber can take just those.
 */
export const RESOURCE_EVENT_TYPES = [
  'story.created',
  'story.updated',
  'story.moved',
  'story.blocked',
  'story.unblocked',
  'story.deleted',
  'story.tagged',
  'story.untagged',
  'task.created',
  'task.updated',
  'task.deleted',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'attachment.created',
  'attachment.updated',
  'attachment.deleted',
  'member.added',
  'member.removed',
  'role.created',
  'role.updated',
  'role.deleted',
  'invite.created',
  'invite.accepted',
  'invite.deleted',
  // Added after the type became an open enum (released consumers skip them): the board's own changes.
  'phase.created',
  'phase.updated',
  'phase.deleted',
  'tag.created',
  'tag.updated',
  'tag.deleted',
] as const;
export type ResourceEventType = (typeof RESOURCE_EVENT_TYPES)[number];

/**
 * A change to a project's resources, published by the service that made it (through its outbox, in the change's
 * transaction) for webhooks. Every service publishes to this one topic, keyed by the project id, so a project's
 * changes stay in order. The envelope's `id` is the event's stable id (a webhook's `webhook-id`), its
 * `occurredAt` the time of the change.
 *
 * `subject` names what the change is about, for ordering: changes to one subject are delivered in the order they
 * were made (a story's own changes and those of its tasks, comments, tags and attachments share `story:<id>`).
 * `resource` is the publishing service's view of the resource after the change (before it, for deletions):
 * the ids and fields the API shows, not yet rendered (user and project names are looked up when delivering).
 */
export const resourceChangedV1 = defineEvent(
  'flowboard.resource-changed',
  1,
  z.object({
    projectId: z.number().int().positive(),
    /** The user who made the change; 0 when nobody did (a system action). */
    actorId: z.number().int().nonnegative(),
    /**
     * The API key the change was made with (README "Scoped API keys": which agent did this), its name as it was
     * then; absent for a system action and from producers older than scoped keys.
     */
    actorKey: z.object({ id: z.number().int().positive(), name: z.string().max(100) }).optional(),
    /**
     * Open: every consumer of this topic skips an event whose type it doesn't know (a newer producer's), so a type
     * can be added without a breaking change once the consumers that skip are released (the contract gate reads the
     * marker: packages/events/scripts/compat.mjs, docs/design.md "Contracts between teams").
     */
    type: z.enum(RESOURCE_EVENT_TYPES).meta({ [OPEN_ENUM]: true }),
    subject: z.string().min(1),
    resource: z.record(z.string(), z.unknown()),
  }),
);
export type ResourceChangedV1 = z.infer<typeof resourceChangedV1.data>;

/** What a subject names: a story (its own changes and its children's), a project member, a role, an invite, a phase, a tag. */
export type ResourceSubjectKind = 'story' | 'member' | 'role' | 'invite' | 'phase' | 'tag';

/** `<kind>:<id>`, e.g. `story:12`: changes to one subject are delivered in the order they were made. */
export const resourceSubject = (kind: ResourceSubjectKind, id: number): string => `${kind}:${id}`;

/**
 * One change as the outbox row its service writes in the change's transaction: the envelope (`makeEvent`, so the
 * data is checked against the contract here, not by the consumer), keyed by the project id like every project
 * event, so a project's changes stay in order on one partition.
 */
export function resourceChangedMessage(source: string, data: ResourceChangedV1): OutboxMessage {
  const event = makeEvent(resourceChangedV1, source, data);
  return {
    id: event.id,
    topic: resourceChangedV1.topic,
    key: String(data.projectId),
    payload: event,
    change: true,
  };
}

/**
 * A resource-changed message as a consumer reads it: the event, or, for a type this release does not know (a newer
 * producer's: the type is an open enum), that type, which the consumer skips. Anything else invalid throws
 * InvalidEventError, as parseEvent does.
 */
export function readResourceChanged(
  raw: Buffer | string | null,
): { event: Envelope<ResourceChangedV1> } | { unknownType: string } {
  const json = messageJson(raw);
  const type = (json as { data?: { type?: unknown } } | null)?.data?.type;
  if (typeof type === 'string' && !KNOWN_TYPES.has(type)) return { unknownType: type };
  return { event: validateEvent(resourceChangedV1, json) };
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(RESOURCE_EVENT_TYPES);
