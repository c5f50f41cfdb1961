import type { membership } from '@flowboard/proto';
import { DomainError } from '@flowboard/service-kit';
import { invalidField } from '../../wire/fields';

/** A user reference as membership takes it: an id, or else (id 0) a username. */
export type UserRef = membership.UserRef__Output;

/**
 * The one parser of user references (docs/compat.md §1.4, §5.1, §5.3), for bodies (members, roles, a project's and a
 * story's owner) and `{user}` in paths: a number or an all-digit string is an id (a positive integer); any other
 * string is a username, trimmed (membership matches it ignoring case); an object names one by `id`, else by
 * `userName`/`username` (`id` wins). Undefined for anything else, so each caller says what that means.
 */
export function parseUserRef(value: unknown): UserRef | undefined {
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && value > 0 ? { id: value, user_name: '' } : undefined;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return undefined;
    return /^\d+$/.test(text) ? parseUserRef(Number(text)) : { id: 0, user_name: text };
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    if (given(obj.id)) return parseUserRef(obj.id);
    const name = [obj.userName, obj.username].find(given);
    return typeof name === 'string' && name.trim() !== '' ? { id: 0, user_name: name.trim() } : undefined;
  }
  return undefined;
}

const given = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

/** A user reference in a body; anything else is a 400 `invalid-field` (`what` names the field). */
export function userRef(value: unknown, what = 'A user reference'): UserRef {
  const ref = parseUserRef(value);
  if (!ref) throw invalidField(`${what} must be a user id, a username or an object with 'id' or 'userName'.`);
  return ref;
}

/** `{user}` in a path (already decoded): an id or a username; a segment that is neither names nobody (404). */
export function userRefFromPath(segment: string): UserRef {
  const ref = parseUserRef(segment);
  if (!ref) throw new DomainError('NotFound', `No user '${segment}'.`);
  return ref;
}
