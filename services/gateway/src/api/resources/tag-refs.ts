import type { boards } from '@flowboard/proto';
import { DomainError } from '@flowboard/service-kit';
import type { Fields } from '../../wire/body';
import { invalidField } from '../../wire/fields';

/**
 * Tag references in request bodies (spec "Reference syntax", docs/compat.md §1.4, §5.3): a number or `{id}`
 * is an id; a string or `{name}` is a name. A numeric string is sent as both, so boards tries it as an id
 * first and then as a name (XML has only strings: `<tag>3</tag>` must reach tag 3, and a tag may be named
 * "2024").
 */
export function tagRef(value: unknown, field: string): boards.TagRef {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value > 0) return { id: value, name: '' };
  } else if (typeof value === 'string') {
    const text = value.trim();
    if (/^\d{1,15}$/.test(text) && Number(text) > 0) return { id: Number(text), name: text };
    if (text !== '') return { id: 0, name: text };
  } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const obj = value as Fields;
    if (obj.id !== undefined && obj.id !== null && obj.id !== '') {
      const id = typeof obj.id === 'string' && /^\s*\d{1,15}\s*$/.test(obj.id) ? Number(obj.id) : obj.id;
      if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) return { id, name: '' };
    } else if (typeof obj.name === 'string' && obj.name.trim() !== '') {
      return { id: 0, name: obj.name.trim() };
    } else if (typeof obj.name === 'number') {
      return tagRef(String(obj.name), field);
    }
  }
  throw invalidField(`Field '${field}' must hold tag ids, tag names, or objects with 'id' or 'name'.`);
}

/** `tags` on a story create: an array of references; absent, null or empty means none. */
export function tagRefsField(fields: Fields, name: string): boards.TagRef[] {
  const value = fields[name];
  if (value === undefined || value === null || value === '') return [];
  if (!Array.isArray(value)) throw invalidField(`Field '${name}' must be an array of tag references.`);
  return value.map((item) => tagRef(item, name));
}

/** One reference as a whole body (`POST S/tags`, `POST P/tags/{tag}/stories`): an array is refused. */
export function singleItem(value: unknown, what: string): unknown {
  if (Array.isArray(value) || value === undefined) {
    throw new DomainError('InvalidArgument', `The body must be one ${what} reference (not a list).`, {
      problem: 'invalid-body',
    });
  }
  return value;
}
