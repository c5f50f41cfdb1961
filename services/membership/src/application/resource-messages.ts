import type { membership } from '@flowboard/proto';
import type { AccessLevel } from '../domain/access';
import { formatTimestamp } from '../domain/time';
import type { Invite, Role, RoleWithMembers, User } from './ports';

/**
 * The gRPC messages of the resources membership's change events carry (members, roles, invites): built here,
 * beside the use cases that write the events, and used by the gRPC handlers for their answers, so an event's
 * resource is exactly what the API answers.
 */

const ACCESS_TO_PROTO: Record<AccessLevel, membership.Access__Output> = {
  none: 'ACCESS_NONE',
  read: 'ACCESS_READ',
  readwrite: 'ACCESS_READWRITE',
  admin: 'ACCESS_ADMIN',
};

export const toAccessMessage = (access: AccessLevel): membership.Access__Output => ACCESS_TO_PROTO[access];

export const toUserMessage = (user: User): membership.User => ({
  id: user.id,
  name: user.name,
  user_name: user.userName,
  email: user.email,
  bio: user.bio,
  create_time: formatTimestamp(user.createdAt),
});

export const toRoleMessage = (role: RoleWithMembers): membership.Role => ({
  id: role.id,
  name: role.name,
  access: toAccessMessage(role.access),
  members: role.members.map(toUserMessage),
  version: role.version,
});

export const toInviteMessage = (invite: Invite, sender: User, role: Role): membership.Invite => ({
  id: invite.id,
  create_time: formatTimestamp(invite.createdAt),
  email: invite.email,
  token: invite.token,
  sender: toUserMessage(sender),
  role: { id: role.id, name: role.name },
});
