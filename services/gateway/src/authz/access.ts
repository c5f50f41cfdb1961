import type { membership } from '@flowboard/proto';
import { accessName, type AccessName } from '@flowboard/representation';

/** The minimum project access a route needs (the spec's Access column): Read < ReadWrite < Admin. */
export type AccessLevel = 'Read' | 'ReadWrite' | 'Admin';

/** A caller's effective access on a project; `none` is a member without a role. */
export type EffectiveAccess = AccessName;

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
    access: response.is_owner ? 'admin' : accessName(response.access),
    isOwner: response.is_owner,
  };
}
