import { XML_ONLY_EMPTY, type Dto, type DtoValue, type ResourceType } from '@flowboard/representation';
import { itemElementFor, knownItemElement } from './xml-names';

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

/**
 * Writes a DTO as the contract's XML (docs/compat.md §2): element names = JSON names, children in
 * alphabetical (ordinal) order at every level, arrays as a wrapper with one singular element per item, empty
 * strings and arrays as `<name />`, unset values omitted.
 *
 * A small writer rather than fast-xml-parser's XMLBuilder: the builder writes `<a/>` where the contract shows
 * `<a />`, and every other rule (ordering, wrappers, omissions) would need the same pre-pass anyway.
 *
 * @param pageItem for a page envelope, the type of its `items`
 */
export function toXml(root: string, value: Dto, pageItem?: ResourceType): string {
  return XML_DECLARATION + element(root, value, pageItem);
}

function element(name: string, value: DtoValue, pageItem?: ResourceType): string {
  if (value === undefined) return '';
  if (value === XML_ONLY_EMPTY) return `<${name} />`;
  const scalar = scalarElement(name, value);
  if (scalar !== undefined) return scalar;
  if (Array.isArray(value)) {
    if (value.length === 0) return `<${name} />`;
    const item = itemElementFor(name, pageItem);
    return `<${name}>${value.map((v) => element(item, v)).join('')}</${name}>`;
  }
  const object = value as Dto; // what is neither scalar nor array
  const children = Object.keys(object)
    .sort(ordinal)
    .map((key) => element(key, object[key], pageItem))
    .join('');
  return children ? `<${name}>${children}</${name}>` : `<${name} />`;
}

/** A string, number or boolean as its element (`''` as an empty one); undefined for anything else. */
function scalarElement(name: string, value: unknown): string | undefined {
  if (value === '') return `<${name} />`;
  if (typeof value === 'string') return `<${name}>${escapeText(value)}</${name}>`;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`Cannot write ${value} as XML (${name})`);
    return `<${name}>${value}</${name}>`;
  }
  if (typeof value === 'boolean') return `<${name}>${value}</${name}>`;
  return undefined;
}

/**
 * A JSON value from elsewhere (a change's webhook payload, already rendered as the API shows resources) as an element
 * under the same rules as `toXml`: children in ordinal order, arrays wrapped with their items named as the API names
 * them (`tags/tag`, `members/user`...), or `item` for an array property the API has no name for; `null` omitted as
 * an unset value is; a key that is not an XML name gets its other characters replaced by `_`, so the document always
 * parses. No declaration: it is a part of a document.
 */
export function jsonElement(name: string, value: unknown): string {
  if (value === undefined || value === null) return '';
  const scalar = scalarElement(name, value);
  if (scalar !== undefined) return scalar;
  if (Array.isArray(value)) {
    if (value.length === 0) return `<${name} />`;
    const item = knownItemElement(name) ?? 'item';
    return `<${name}>${value.map((v) => jsonElement(item, v)).join('')}</${name}>`;
  }
  if (typeof value !== 'object') throw new Error(`Cannot write a ${typeof value} as XML (${name})`);
  const object = value as Record<string, unknown>;
  const children = Object.keys(object)
    .map((key) => [xmlName(key), object[key]] as const)
    .sort(([a], [b]) => ordinal(a, b))
    .map(([key, child]) => jsonElement(key, child))
    .join('');
  return children ? `<${name}>${children}</${name}>` : `<${name} />`;
}

/** An XML 1.0 name (ASCII subset): a letter or `_`, then letters, digits, `_`, `-`, `.`. */
const XML_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function xmlName(key: string): string {
  if (XML_NAME.test(key)) return key;
  const replaced = key.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(replaced) ? replaced : `_${replaced}`;
}

/** Ordinal comparison, as .NET's DataContractSerializer ordered the original's members. */
const ordinal = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

// Characters XML 1.0 cannot carry at all; they are replaced rather than producing a document nobody can parse.
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Text content: `&`, `<`, `>` are escaped; `\r` as a character reference, so parsers keep it. */
export function escapeText(text: string): string {
  return text
    .replace(INVALID_XML_CHARS, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#13;');
}
