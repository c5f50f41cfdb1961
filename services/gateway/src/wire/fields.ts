import { DomainError } from '@flowboard/service-kit';
import type { Fields } from './body';

/**
 * Typed reads of request-body fields with the API's leniency (docs/compat.md §1.4): numeric strings work
 * where integers are expected, and `null` (or an empty XML element) means "unset". Text fields take strings
 * only: a number or boolean there is refused rather than stored as its text (`{"name": false}` is not a role
 * named "false"), except `size` and `priority`, free text that clients send as numbers (`"size": 5` → `"5"`).
 * Errors are 400 `invalid-field` naming the field.
 */
export const invalidField = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-field' });

/** The first of several accepted spellings that is present (`userName`/`username`). */
export function pick(fields: Fields, ...names: string[]): unknown {
  for (const name of names) if (fields[name] !== undefined) return fields[name];
  return undefined;
}

/** A string field, or undefined when absent or null; any other type is refused. */
export function optionalString(fields: Fields, name: string, ...aliases: string[]): string | undefined {
  const value = pick(fields, name, ...aliases);
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  throw invalidField(`Field '${name}' must be a string.`);
}

/**
 * A free-text field that clients fill with numbers as often as with text (a story's `size` and `priority`): a
 * string, or a finite JSON number written as its text. Booleans and anything else are refused.
 */
export function optionalNumericText(fields: Fields, name: string): string | undefined {
  const value = fields[name];
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'number') throw invalidField(`Field '${name}' must be a string or a finite number.`);
  return optionalString(fields, name);
}

/** A string field that must be present and not blank. */
export function requiredString(fields: Fields, name: string, ...aliases: string[]): string {
  const value = optionalString(fields, name, ...aliases);
  if (value === undefined || value.trim() === '') throw invalidField(`Field '${name}' is required.`);
  return value;
}

/**
 * A boolean that must be present (docs/compat.md §1.5: `true`/`false`): a JSON boolean, or the text of an XML
 * element (`<enabled>false</enabled>`), trimmed, in any case. Anything else — absent, null, "", 0/1 — is refused.
 */
export function requiredBoolean(fields: Fields, name: string): boolean {
  const value = toBoolean(fields[name]);
  if (value === undefined) throw invalidField(`Field '${name}' is required and must be true or false.`);
  return value;
}

/**
 * A boolean as `requiredBoolean` reads it, or undefined when absent, null or an empty XML element (`<active />`:
 * empty is null for anything but a string, docs/compat.md §2). Anything else is refused.
 */
export function optionalBoolean(fields: Fields, name: string): boolean | undefined {
  const value = fields[name];
  if (value === undefined || value === null || value === '') return undefined;
  const bool = toBoolean(value);
  if (bool === undefined) throw invalidField(`Field '${name}' must be true or false.`);
  return bool;
}

function toBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  return text === 'true' || text === 'false' ? text === 'true' : undefined;
}

/** An integer from a number or a numeric string; null for null or "" (clears); undefined when absent. */
export function optionalInteger(fields: Fields, name: string): number | null | undefined {
  const value = fields[name];
  if (value === undefined) return undefined;
  const n = toInteger(value);
  if (n === undefined) throw invalidField(`Field '${name}' must be an integer.`);
  return n;
}

function toInteger(value: unknown): number | null | undefined {
  if (value === null || (typeof value === 'string' && value.trim() === '')) return null;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** A reference to another resource: by id, or by name where names are accepted. */
export type Reference = { id: number } | { name: string };

/**
 * A reference field (docs/compat.md §1.4, §5.3): a number or numeric string is an id; another string is a
 * name (when `byName`); an object is read by its `id`, else its `name`. null/"" → null (unset).
 */
export function optionalReference(
  fields: Fields,
  name: string,
  options: { byName: boolean },
): Reference | null | undefined {
  const value = fields[name];
  if (value === undefined) return undefined;
  const ref = toReference(value, options.byName);
  if (ref === undefined)
    throw invalidField(
      `Field '${name}' must be ${options.byName ? 'an id, a name' : 'an id'} or an object with ${options.byName ? "'id' or 'name'" : "'id'"}.`,
    );
  return ref;
}

function toReference(value: unknown, byName: boolean): Reference | null | undefined {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const obj = value as Fields;
    if (obj.id !== undefined && obj.id !== null && obj.id !== '')
      return toReference(obj.id, false) ?? undefined;
    if (byName && typeof obj.name === 'string' && obj.name.trim() !== '') return { name: obj.name.trim() };
    return undefined;
  }
  const id = toInteger(value);
  if (id === null) return null;
  if (id !== undefined) return id > 0 ? { id } : undefined;
  if (byName && typeof value === 'string') return { name: value.trim() };
  return undefined;
}
