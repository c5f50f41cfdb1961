import type { membership } from '@flowboard/proto';

/** The minimum project access a route needs (the spec's Access column): Read < ReadWrite < Admin. */
export type AccessLevel = 'Read' | 'ReadWrite' | 'Admin';

/** A caller's effective access on a project; `none` is a member without a role. */
export type EffectiveAccess = 'none' | 'read' | 'readwrite' | 'admin';

const RANK: Readonly<Record<EffectiveAccess, number>> = { none: 0, read: 1, readwrite: 2, admin: 3 };
const REQUIRED: Readonly<Record<AccessLevel, number>> = { Read: 1, ReadWrite: 2, Admin: 3 };

export const allows = (actual: EffectiveAccess, required: AccessLevel): boolean =>
  RANK[actual] >= REQUIRED[required];

/** What the gateway knows about the caller and a project after the access check. */
export interface ProjectAccess {
  projectId: number;
  projectName: string;
  access: EffectiveAccess;
  isOwner: boolean;
}

export function projectAccessFrom(
  response: membership.GetProjectAccessResponse__Output,
  projectId: number,
): ProjectAccess {
  return {
    projectId: response.project_id || projectId,
    projectName: response.project_name,
    // The owner is admin whatever membership's enum says (docs/compat.md §3.2).
    access: response.is_owner ? 'admin' : fromProto(response.access),
    isOwner: response.is_owner,
  };
}

function fromProto(access: membership.Access__Output): EffectiveAccess {
  switch (access) {
    case 'ACCESS_READ':
      return 'read';
    case 'ACCESS_READWRITE':
      return 'readwrite';
    case 'ACCESS_ADMIN':
      return 'admin';
    default:
      return 'none';
  }
}
