import type { Envelope, ResourceChangedV1 } from '@flowboard/events';
import type { boards, files, membership } from '@flowboard/proto';
import {
  attachmentMessageDto,
  commentDto,
  embeddedUser,
  inviteDto,
  roleDto,
  storyDto,
  tagDto,
  taskDto,
  userDto,
  type Dto,
  type UsersById,
} from '@flowboard/representation';
import type { PayloadRenderer, RenderedChange } from '../application/ports';

/** The names a payload shows, looked up once per event (membership's ResolveNames). */
export interface NameSource {
  resolve(projectId: number, userIds: number[]): Promise<{ projectName: string; users: UsersById }>;
}

type Resource = Record<string, unknown>;

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
 * The resource as the API shows it (the same builders as the gateway's GET answers, packages/representation), with
 * the project's and users' names resolved in one call to membership. A resource of an unexpected shape renders
 * what it has rather than failing: a payload that can never be rendered would hold its Kafka partition forever.
 * Only a failing lookup throws, and the event is retried.
 */
export function createApiRenderer(names: NameSource): PayloadRenderer {
  return {
    async render(event: Envelope<ResourceChangedV1>): Promise<RenderedChange> {
      const { projectId, actorId, type, subject, resource } = event.data;
      const family = type.slice(0, type.indexOf('.'));
      const userIds = [
        ...new Set([...referencedUserIds(family, resource), ...(actorId > 0 ? [actorId] : [])]),
      ];
      const { projectName, users } = await names.resolve(projectId, userIds);
      const project = { id: projectId, name: projectName };
      const storyItself = family === 'story' && !isTagging(type);
      const storyId = storyItself ? undefined : storyIdOf(subject);
      return {
        project,
        actor: actorId > 0 ? embeddedUser(actorId, users) : { id: 0 },
        ...(storyId === undefined ? {} : { story: { id: storyId } }),
        data: renderResource(type, resource, { project, users }),
      };
    },
  };
}

function renderResource(
  type: ResourceChangedV1['type'],
  resource: Resource,
  view: { project: { id: number; name: string }; users: UsersById },
): Dto {
  // The resource is the publishing service's gRPC message of it, as JSON (packages/events resource-changed.ts).
  const as = <T>() => resource as unknown as T;
  if (isTagging(type)) return tagDto(as<boards.Tag__Output>());
  switch (type.slice(0, type.indexOf('.'))) {
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
    default:
      return resource as Dto;
  }
}
