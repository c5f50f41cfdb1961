import { DomainError } from '@flowboard/service-kit';

/**
 * The one rule every string of a request obeys, wherever it comes from (a path segment, a query argument, a body
 * field): it holds no NUL character (U+0000). PostgreSQL cannot store that character in text and no field of the
 * API has a use for it, so it is refused where the string enters the gateway, with a 400 naming where it was,
 * instead of failing as a 500 deep inside a service.
 *
 * Where it is applied: `createCall` checks the path parameters and every query argument once the route and the
 * caller's access are settled, before the handler runs; `readBody` checks every string of a JSON or XML body,
 * at any depth, when the handler reads it (after its sub-resource checks, docs/compat.md §3.3).
 */
const NUL = '\u0000';

/** The matched route's text path parameters and every query argument, known or not: 400 `invalid-parameter`. */
export function checkPathAndQuery(
  params: Readonly<Record<string, string | number>>,
  query: { entries(): Iterable<[string, string]> },
): void {
  for (const [name, value] of Object.entries(params))
    if (typeof value === 'string') checkParameter(value, 'Path parameter', name);
  for (const [name, value] of query.entries()) checkParameter(value, 'Query argument', name);
}

function checkParameter(value: string, kind: 'Query argument' | 'Path parameter', name: string): void {
  if (value.includes(NUL))
    throw new DomainError('InvalidArgument', `${kind} '${name}' must not contain a NUL character.`, {
      problem: 'invalid-parameter',
    });
}

/**
 * A parsed JSON body: 400 `invalid-field` naming the first field (a path such as `tasks[0].text`) whose string value
 * holds a NUL. Object keys are not checked: unknown fields are ignored (docs/compat.md §1.4), and a key with
 * a NUL is never a known one.
 */
export function checkJsonStrings(value: unknown): void {
  const field = firstNul(value, '');
  if (field !== undefined) throw nulInField(field);
}

/** An XML element tree as the body reader keeps it (`XmlElement`). */
interface ElementTree {
  name: string;
  text: string;
  children: ElementTree[];
}

/** A parsed XML body: the same rule; the field is named by its element path below the root (`tasks.task.text`). */
export function checkXmlStrings(root: ElementTree): void {
  const field = firstNulElement(root, '');
  if (field !== undefined) throw nulInField(field);
}

const nulInField = (field: string) =>
  new DomainError(
    'InvalidArgument',
    field === ''
      ? 'The request body must not contain a NUL character.'
      : `Field '${field}' must not contain a NUL character.`,
    { problem: 'invalid-field' },
  );

function firstNulElement(el: ElementTree, path: string): string | undefined {
  if (el.text.includes(NUL)) return path;
  for (const child of el.children) {
    const found = firstNulElement(child, path === '' ? child.name : `${path}.${child.name}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function firstNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstNul(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      const found = firstNul(child, path === '' ? key : `${path}.${key}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
