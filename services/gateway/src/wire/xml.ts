import { XML_ONLY_EMPTY, type Dto, type DtoValue, type ResourceType } from '@flowboard/representation';
import { itemElementFor } from './xml-names';

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
  if (value === XML_ONLY_EMPTY || value === '') return `<${name} />`;
  if (typeof value === 'string') return `<${name}>${escapeText(value)}</${name}>`;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`Cannot write ${value} as XML (${name})`);
    return `<${name}>${value}</${name}>`;
  }
  if (typeof value === 'boolean') return `<${name}>${value}</${name}>`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `<${name} />`;
    const item = itemElementFor(name, pageItem);
    return `<${name}>${value.map((v) => element(item, v)).join('')}</${name}>`;
  }
  const children = Object.keys(value)
    .sort(ordinal)
    .map((key) => element(key, value[key], pageItem))
    .join('');
  return children ? `<${name}>${children}</${name}>` : `<${name} />`;
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
