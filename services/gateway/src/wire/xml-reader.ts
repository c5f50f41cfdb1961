import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { isArrayProperty } from './xml-names';

/** An XML element reduced to what request bodies use: its name and either text or child elements. */
export interface XmlElement {
  name: string;
  /** Child elements in document order; empty for a text-only or empty element. */
  children: XmlElement[];
  /** Trimmed text content; "" for an empty element. */
  text: string;
}

export class XmlBodyError extends Error {
  override name = 'XmlBodyError';
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  parseTagValue: false,
  trimValues: true,
  // Entities are decoded below, in one pass, so that `&amp;lt;` stays `&lt;` and nothing user-declared expands.
  processEntities: false,
});

/**
 * Parses an XML request body (docs/compat.md §2). Refuses any DOCTYPE or entity declaration before parsing,
 * so no entity is ever expanded and nothing external is fetched; malformed documents and unknown entities are
 * refused.
 */
export function readXml(text: string): XmlElement {
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    throw new XmlBodyError('DOCTYPE and entity declarations are not accepted');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new XmlBodyError(`Malformed XML: ${valid.err.msg} (line ${valid.err.line})`);
  let parsed: unknown[];
  try {
    parsed = parser.parse(text) as unknown[];
  } catch (err) {
    // e.g. the parser's own refusal of `__proto__` element names
    throw new XmlBodyError(`Unreadable XML: ${(err as Error).message}`);
  }
  const roots = toElements(parsed);
  if (roots.length !== 1) throw new XmlBodyError('An XML body must have exactly one root element');
  return roots[0] as XmlElement;
}

type OrderedNode = Record<string, unknown>;

function toElements(nodes: unknown[]): XmlElement[] {
  const out: XmlElement[] = [];
  for (const node of nodes as OrderedNode[]) {
    const name = Object.keys(node).find((k) => k !== ':@' && k !== '#text');
    if (!name) continue; // text between elements, comments
    const content = node[name] as OrderedNode[];
    const children = toElements(content);
    const text = content
      .map((c) => (typeof c['#text'] === 'string' ? c['#text'] : ''))
      .join('')
      .trim();
    out.push({ name, children, text: decodeEntities(text) });
  }
  return out;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][\w.-]*);/g, (_m, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (!Number.isInteger(code) || code > 0x10ffff)
        throw new XmlBodyError(`Invalid character reference &${ref};`);
      return String.fromCodePoint(code);
    }
    const value = NAMED_ENTITIES[ref];
    if (value === undefined) throw new XmlBodyError(`Unknown entity &${ref};`);
    return value;
  });
}

/**
 * The value of an element as a request field (docs/compat.md §2): text → string, empty → "", child elements →
 * an object of fields; an element named after an array property (`tags`, `tasks`, `members`, ...) → an array
 * with one item per child.
 */
export function xmlValue(el: XmlElement): unknown {
  if (isArrayProperty(el.name)) return el.children.map(itemValue);
  return itemValue(el);
}

/** One item: text, or an object whose fields are the children (repeated children: the last one wins). */
export function itemValue(el: XmlElement): unknown {
  if (el.children.length === 0) return el.text;
  return xmlFields(el);
}

/** The children of an element as fields (the root of a body, or an object item). */
export function xmlFields(el: XmlElement): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const child of el.children) {
    if (child.name === '__proto__') continue; // never let a body reach an object's prototype
    fields[child.name] = xmlValue(child);
  }
  return fields;
}
