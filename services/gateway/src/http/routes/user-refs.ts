import type { membership } from '@flowboard/proto';
import { DomainError } from '@flowboard/service-kit';

/**
 * User references in request bodies and paths (docs/compat.md §5.1): an id (number or numeric string), a
 * username string, or an object with `id` or `userName`/`username` (`id` wins). Usernames match ignoring
 * case.
 */
export function userRef(value: unknown, what = 'user reference'): membership.UserRef {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    if (obj.id !== undefined && obj.id !== null && obj.id !== '') return userRef(obj.id, what);
    const name = obj.userName ?? obj.username;
    if (typeof name === 'string' && name.trim()) return { id: 0, user_name: name.trim() };
  } else if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) {
    return { id: value, user_name: '' };
  } else if (typeof value === 'string' && value.trim()) {
    const text = value.trim();
    if (/^\d+$/.test(text) && Number.isSafeInteger(Number(text)) && Number(text) > 0)
      return { id: Number(text), user_name: '' };
    return { id: 0, user_name: text };
  }
  throw new DomainError(
    'InvalidArgument',
    `A ${what} must be an id, a username or an object with 'id' or 'userName'.`,
    {
      problem: 'invalid-field',
    },
  );
}

/** `{user}` in a path (already decoded): an id or a username. */
export const userRefFromPath = (segment: string): membership.UserRef => userRef(segment);
