import type { Envelope, ResourceChangedV1 } from '@flowboard/events';
import type { boards, files, membership } from '@flowboard/proto';
import { attachmentMessageDto } from './attachment.dto';
import { commentDto } from './comment.dto';
import type { Dto } from './dto';
import { inviteDto } from './invite.dto';
import { phaseDto } from './phase.dto';
import { roleDto } from './role.dto';
import { storyDto } from './story.dto';
import { tagDto } from './tag.dto';
import { taskDto } from './task.dto';
import { embeddedUser, userDto, type UsersById } from './user.dto';

/**
 * A `flowboard.resource-changed.v1` event as its receivers see it: a webhook's POST body, and an event of the
 * gateway's change stream. Keys in this order; `story` is absent unless the change is to a story's task, comment,
 * tag or attachment.
 */
export interface ChangePayload {
  /** The event's id (the envelope's; a webhook's `webhook-id`). */
  id: string;
  /** The change's type (`story.updated`...), not the envelope's. */
  type: string;
  /** When the change was made (the envelope's `occurredAt`). */
  timestamp: string;
  /** `{id, name}` */
  project: { id: number; name: string };
  /**
   * The user who made the change as the API embeds users, with `apiKey: {id, name}` (the key it was made with)
   * when known; `{id: 0}` for a system action.
   */
  actor: Dto;
  /** `{id}` of the story, for a change to one of its tasks, comments, tags or attachments. */
  story?: { id: number };
  /** The resource as the API shows it. */
  data: Dto;
}

/**
 * What changePayloadJson writes, in any key order: a ChangePayload, or another event in the same shape (webhooks'
 * `webhook.ping`: project and actor with their ids only, `data: {webhook: {id}}`).
 */
export interface PayloadFields {
  id: string;
  type: string;
  timestamp: string;
  project: object;
  actor: object;
  story?: object;
  data: object;
}

/** The names a payload shows: its project's, and its users' by id (membership's ResolveNames answers both). */
export interface ChangeNames {
  projectName: string;
  users: UsersById;
}

type Resource = Record<string, unknown>;

const familyOf = (type: string): string => type.slice(0, type.indexOf('.'));

/** The user ids a resource refers to by id only; the others (roles' members, invites' senders) come embedded. */
function referencedUserIds(family: string, resource: Resource): number[] {
  const ids = (...keys: string[]) => keys.map((key) => Number(resource[key])).filter((id) => id > 0);
  switch (family) {
    case 'story':
      return ids('creator_id', 'owner_id');
    case 'task':
      return ids('finished_by');
    case 'comment':
      return ids('author_id');
    default:
      return [];
  }
}

/**
 * The users whose names the change's payload shows, each once: those its resource refers to by id (a story's
 * creator and owner, a task's finisher, a comment's author), then the actor unless it is a system action (0).
 * Resolve them, with the project's name, before renderChange.
 */
export function changeUserIds(change: ResourceChangedV1): number[] {
  const { actorId, type, resource } = change;
  return [...new Set([...referencedUserIds(familyOf(type), resource), ...(actorId > 0 ? [actorId] : [])])];
}

/** A tag put on or taken off a story: the resource is the tag. */
const isTagging = (type: string) => type === 'story.tagged' || type === 'story.untagged';

/** `story:<id>` → the story's id, for events about a story or its tasks, comments, tags and attachments. */
const storyIdOf = (subject: string): number | undefined => {
  const match = /^story:(\d+)$/.exec(subject);
  return match ? Number(match[1]) : undefined;
};

/**
 * Tokens are left out of payloads although the API shows them to project admins: an invite's token accepts the
 * invite and an attachment's token downloads it, and a payload goes to a third party's server.
 */
function withoutToken(dto: Dto): Dto {
  const { token: _token, ...rest } = dto;
  return rest;
}

/**
 * The payload of a change: the event's identity, where and by whom, and the resource as the API shows it (the same
 * builders as the gateway's GET answers), with the names of changeUserIds and the project resolved by the caller.
 * A user missing from `names` is shown with empty names. A resource of an unexpected shape renders what it has
 * rather than failing: a payload that can never be rendered would hold its Kafka partition forever.
 */
export function renderChange(event: Envelope<ResourceChangedV1>, names: ChangeNames): ChangePayload {
  const { projectId, actorId, actorKey, type, subject, resource } = event.data;
  const project = { id: projectId, name: names.projectName };
  const storyItself = familyOf(type) === 'story' && !isTagging(type);
  const storyId = storyItself ? undefined : storyIdOf(subject);
  return {
    id: event.id,
    type,
    timestamp: event.occurredAt,
    project,
    // With the API key the change was made with, when its producer knew it: which agent did this.
    actor:
      actorId > 0
        ? {
            ...embeddedUser(actorId, names.users),
            ...(actorKey ? { apiKey: { id: actorKey.id, name: actorKey.name } } : {}),
          }
        : { id: 0 },
    ...(storyId === undefined ? {} : { story: { id: storyId } }),
    data: renderResource(type, resource, { project, users: names.users }),
  };
}

/**
 * The payload as JSON text: `{id, type, timestamp, project, actor, story, data}` in that order whatever the
 * object's own, `story` left out when absent. Plain JSON.stringify (unlike toJson, a null is written as null):
 * these are the bytes webhooks store, sign and send, so they must not change.
 */
export const changePayloadJson = (payload: PayloadFields): string =>
  JSON.stringify({
    id: payload.id,
    type: payload.type,
    timestamp: payload.timestamp,
    project: payload.project,
    actor: payload.actor,
    story: payload.story,
    data: payload.data,
  });

function renderResource(
  type: ResourceChangedV1['type'],
  resource: Resource,
  view: { project: { id: number; name: string }; users: UsersById },
): Dto {
  // The resource is the publishing service's gRPC message of it, as JSON (packages/events resource-changed.ts).
  const as = <T>() => resource as unknown as T;
  if (isTagging(type)) return tagDto(as<boards.Tag__Output>());
  switch (familyOf(type)) {
    case 'story':
      return storyDto(as<boards.Story__Output>(), { ...view, details: true });
    case 'task':
      return taskDto(as<boards.Task__Output>(), view.users);
    case 'comment':
      return commentDto(as<boards.Comment__Output>(), view.users);
    case 'attachment':
      return withoutToken(attachmentMessageDto(as<files.Attachment__Output>()));
    case 'member':
      return userDto(as<membership.User__Output>());
    case 'role':
      return roleDto({
        ...as<membership.Role__Output>(),
        members: as<membership.Role__Output>().members ?? [],
      });
    case 'invite':
      return withoutToken(inviteDto(as<membership.Invite__Output>()));
    case 'phase':
      return phaseDto(as<boards.Phase__Output>());
    case 'tag':
      return tagDto(as<boards.Tag__Output>());
    default:
      return resource as Dto;
  }
}
