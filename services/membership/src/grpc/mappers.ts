import type { membership } from '@flowboard/proto';
import type { AccountView } from '../application/accounts';
import type { ApiKey, Invite, Project, Role, RoleWithMembers, User } from '../application/ports';
import type { AccessLevel } from '../domain/access';
import { formatTimestamp } from '../domain/time';

const ACCESS_TO_PROTO: Record<AccessLevel, membership.Access__Output> = {
  none: 'ACCESS_NONE',
  read: 'ACCESS_READ',
  readwrite: 'ACCESS_READWRITE',
  admin: 'ACCESS_ADMIN',
};

const ACCESS_FROM_PROTO: Partial<Record<membership.Access__Output, AccessLevel>> = {
  ACCESS_NONE: 'none',
  ACCESS_READ: 'read',
  ACCESS_READWRITE: 'readwrite',
  ACCESS_ADMIN: 'admin',
};

/** UNSPECIFIED (or unset) → undefined. */
export const fromAccessMessage = (access: membership.Access__Output | undefined): AccessLevel | undefined =>
  access === undefined ? undefined : ACCESS_FROM_PROTO[access];

/** A user reference from a request; a missing one names nobody. */
export const fromUserRef = (ref: membership.UserRef__Output | null | undefined) => ({
  id: ref?.id ?? 0,
  userName: ref?.user_name ?? '',
});

export const toAccessMessage = (access: AccessLevel): membership.Access__Output => ACCESS_TO_PROTO[access];

export const toUserMessage = (user: User): membership.User => ({
  id: user.id,
  name: user.name,
  user_name: user.userName,
  email: user.email,
  bio: user.bio,
  create_time: formatTimestamp(user.createdAt),
});

export const toProjectMessage = (project: Project, owner: User): membership.Project => ({
  id: project.id,
  name: project.name,
  description: project.description,
  details: project.details,
  create_time: formatTimestamp(project.createdAt),
  owner: toUserMessage(owner),
  version: project.version,
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

export const toApiKeyMessage = (key: ApiKey): membership.ApiKey => ({
  id: key.id,
  create_time: formatTimestamp(key.createdAt),
  enabled: key.enabled,
  hint: key.hint,
});

export function toAccountMessage(account: AccountView): membership.Account {
  return {
    id: account.id,
    ...(account.collaboratorLimit === undefined ? {} : { collaborator_limit: account.collaboratorLimit }),
    collaborators_used: account.collaboratorsUsed,
    storage_limit_bytes: account.storageLimitBytes,
  };
}
