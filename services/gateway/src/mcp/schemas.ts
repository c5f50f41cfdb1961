import type { Schema } from '../api/schema';

/**
 * The document's shapes made self-contained for MCP: a tool's schemas travel alone (no document around them to
 * resolve `#/components/schemas/...` against), so every `$ref` is replaced by a copy of the shape it names. The
 * `xml` keywords are dropped: tools speak JSON only.
 */
export type ComponentSchemas = Readonly<Record<string, Schema>>;

const REF = /^#\/components\/schemas\/(.+)$/;

/** `schema` with every reference into `components` inlined; an unknown name or a cycle throws. */
export function inlineSchema(schema: Schema, components: ComponentSchemas, where: string): Schema {
  return inline(schema, components, where, []) as Schema;
}

/** A component by name, inlined; `where` names what wanted it, for the error. */
export function namedSchema(name: string, components: ComponentSchemas, where: string): Schema {
  const schema = components[name];
  if (!schema) throw new Error(`${where}: no schema named ${name}`);
  return inline(schema, components, where, [name]) as Schema;
}

function inline(value: unknown, components: ComponentSchemas, where: string, trail: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => inline(item, components, where, trail));
  if (typeof value !== 'object' || value === null) return value;
  const { $ref, xml: _xml, ...rest } = value as Schema;
  const out: Schema = {};
  if (typeof $ref === 'string') {
    const name = REF.exec($ref)?.[1];
    if (!name) throw new Error(`${where}: a reference outside the component schemas: ${$ref}`);
    const target = components[name];
    if (!target) throw new Error(`${where}: no schema named ${name}`);
    // A shape that contains itself cannot be written out inline.
    if (trail.includes(name)) throw new Error(`${where}: ${[...trail, name].join(' → ')} is a cycle`);
    // Keywords beside the reference (a description of this use) win over the shape's own.
    Object.assign(out, inline(target, components, where, [...trail, name]));
  }
  for (const [key, child] of Object.entries(rest)) out[key] = inline(child, components, where, trail);
  return out;
}
