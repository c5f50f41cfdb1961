import { DomainError } from '@flowboard/service-kit';
import { isAccessLevel, type AccessLevel } from './access';
import { MAX_NAME_LENGTH } from './user';

const invalid = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-field' });

/** A role name: required, trimmed, at most 200 characters; names need not be unique (docs/compat.md §5.7). */
export function parseRoleName(raw: string | undefined): string {
  const name = (raw ?? '').trim();
  if (!name) throw invalid("'name' is required.");
  if (name.length > MAX_NAME_LENGTH) throw invalid(`'name' must be at most ${MAX_NAME_LENGTH} characters.`);
  return name;
}

/** An access level; absent means `none` on create (spec). */
export function parseAccess(raw: string | undefined): AccessLevel {
  if (raw === undefined || raw === '') return 'none';
  if (!isAccessLevel(raw)) throw invalid("'access' must be one of none, read, readwrite, admin.");
  return raw;
}

/**
 * The last-admin rule: after any change to roles or members, at least one user must still be a member of a
 * role with admin access. The owner's implicit admin does not count — otherwise the rule could never apply and
 * a project could end with no admin role member at all. Breaking it is a 409.
 */
export function assertAdminRemains(adminRoleMembers: number): void {
  if (adminRoleMembers < 1) {
    throw new DomainError('Conflict', 'The last admin of the project cannot be removed.');
  }
}
