import { DomainError } from '@flowboard/service-kit';

/** Tag rules (spec "Tag", docs/compat.md §5.5). */

export const TAG_NAME_LIMIT = 200;
/** At most this many tag references in one write: each new name costs a statement. */
export const MAX_TAG_REFS = 1000;

/** A tag named in a path (`{tag}`): a number is tried as an id first, then as a name. */
export interface TagPathRef {
  id?: number;
  name: string;
}

/** A tag named in a body: an existing id, or a name (found ignoring case, else created). */
export type TagRef = { kind: 'id'; id: number; name?: string } | { kind: 'name'; name: string };

const invalidField = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-field' });

const ID = /^\d{1,15}$/;

/** A tag name: trimmed, required (blank counts as missing), at most 200 characters, no control characters. */
export function parseTagName(input: string | undefined | null, field = 'name'): string {
  const value = (input ?? '').trim();
  if (value === '') throw invalidField(`Field '${field}' is required: a tag needs a name.`);
  // Names travel in paths and XML; control characters would make them unreachable or unprintable there.
  if (/\p{Cc}/u.test(value)) throw invalidField(`Invalid ${field}: must not contain control characters.`);
  if ([...value].length > TAG_NAME_LIMIT)
    throw invalidField(`Invalid ${field}: must be at most ${TAG_NAME_LIMIT} characters.`);
  return value;
}

/**
 * `{tag}` from a path (already URL-decoded by the gateway): trimmed like names are; a number may be an id.
 * A blank reference names nothing (undefined → 404 by the caller).
 */
export function parseTagPathRef(input: string): TagPathRef | undefined {
  const name = input.trim();
  if (name === '') return undefined;
  if (ID.test(name)) {
    const id = Number(name);
    if (Number.isSafeInteger(id) && id > 0) return { id, name };
  }
  return { name };
}

/**
 * A body reference from its wire form `{id, name}`: an id (> 0) is tried first; a name goes with it when the
 * client sent a numeric string (tried as a name when no tag has that id). Neither → 400 naming the field.
 */
export function parseTagRef(ref: { id: number; name: string }, field = 'tags'): TagRef {
  const name = ref.name.trim();
  if (Number.isSafeInteger(ref.id) && ref.id > 0) {
    return name === ''
      ? { kind: 'id', id: ref.id }
      : { kind: 'id', id: ref.id, name: parseTagName(name, field) };
  }
  if (ref.id !== 0) {
    throw new DomainError('InvalidArgument', `Invalid ${field}: a tag id must be a positive integer.`, {
      problem: 'invalid-reference',
    });
  }
  if (name === '') {
    throw new DomainError('InvalidArgument', `Invalid ${field}: a tag reference needs an id or a name.`, {
      problem: 'invalid-reference',
    });
  }
  return { kind: 'name', name: parseTagName(name, field) };
}

/** The key names are unique by (per project): case is ignored, as the unique index `lower(name)` does. */
export const tagNameKey = (name: string): string => name.toLowerCase();

/**
 * The names to create-or-find, deduplicated ignoring case and sorted by key, so that concurrent writers that
 * create overlapping sets take the unique-index locks in the same order (no deadlock).
 */
export function uniqueNames(names: readonly string[]): string[] {
  const byKey = new Map<string, string>();
  for (const name of names) if (!byKey.has(tagNameKey(name))) byKey.set(tagNameKey(name), name);
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, name]) => name);
}
