import type { membership } from '@flowboard/proto';
import type { AccountView } from '../application/accounts';
import type { ApiKey, Project, User } from '../application/ports';
import { toUserMessage } from '../application/resource-messages';
import type { AccessLevel } from '../domain/access';
import { formatTimestamp } from '../domain/time';

// The messages of the resources change events carry are built where the use cases can reach them too: one
// mapper for the answer and the event.
export {
  toAccessMessage,
  toInviteMessage,
  toRoleMessage,
  toUserMessage,
} from '../application/resource-messages';

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

export const toProjectMessage = (project: Project, owner: User): membership.Project => ({
  id: project.id,
  name: project.name,
  description: project.description,
  details: project.details,
  create_time: formatTimestamp(project.createdAt),
  owner: toUserMessage(owner),
  version: project.version,
});

export const toApiKeyMessage = (key: ApiKey): membership.ApiKey => ({
  id: key.id,
  create_time: formatTimestamp(key.createdAt),
  enabled: key.enabled,
  hint: key.hint,
  name: key.name,
  expire_time: key.expiresAt ? formatTimestamp(key.expiresAt) : '',
  read_only: key.readOnly,
  project_ids: key.projectIds ?? [],
  groups: key.groups ?? [],
  last_use_time: key.lastUsedAt ? formatTimestamp(key.lastUsedAt) : '',
});

export function toAccountMessage(account: AccountView): membership.Account {
  return {
    id: account.id,
    ...(account.collaboratorLimit === undefined ? {} : { collaborator_limit: account.collaboratorLimit }),
    collaborators_used: account.collaboratorsUsed,
    storage_limit_bytes: account.storageLimitBytes,
  };
}
