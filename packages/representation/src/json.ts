import type { Dto } from './dto';

/**
 * JSON never contains null, and values meant only for XML are left out (docs/compat.md §1.3, §2). XML-only
 * values are a symbol, which JSON.stringify omits by itself; nulls should not reach a DTO (its type has
 * none), but one from a proto message that slipped through is dropped too. A replacer would make
 * JSON.stringify call back into JavaScript for every key (a tenth of the gateway's CPU on story pages), so it
 * runs only when a null is there.
 */
export function toJson(value: Dto): string {
  return containsNull(value) ? JSON.stringify(value, dropNull) : JSON.stringify(value);
}

const dropNull = (_key: string, v: unknown) => (v === null ? undefined : v);

function containsNull(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const item of value) if (containsNull(item)) return true;
    return false;
  }
  for (const key in value) if (containsNull((value as Record<string, unknown>)[key])) return true;
  return false;
}
