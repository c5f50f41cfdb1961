/**
 * The language the API's shapes are written in, JSON Schema 2020-12 (OpenAPI 3.1 `components.schemas`), and the
 * shapes every resource shares: timestamps, access levels, colours, the embedded `{id, name}` and user, and the
 * references a request body may give. Each resource's own shapes sit beside its routes
 * (`resources/<resource>.schemas.ts`); `openapi/components.ts` assembles them into the document.
 *
 * Responses are strict (`additionalProperties: false`): an enrichment that was not requested never appears
 * (docs/compat.md §4.3), so the e2e contract check catches a stray field. Request bodies are lenient, as the
 * gateway is (§1.4: read-only and unknown fields are ignored).
 */

export type Schema = Record<string, unknown>;

/** One resource's shapes by component name: its response objects, their page forms, its request bodies. */
export interface ResourceSchemas {
  responses?: Record<string, Schema>;
  pages?: Record<string, Schema>;
  requests?: Record<string, Schema>;
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str = (description?: string): Schema => ({
  type: 'string',
  ...(description ? { description } : {}),
});
export const int = (description?: string): Schema => ({
  type: 'integer',
  ...(description ? { description } : {}),
});
export const arrayOf = (items: Schema, description?: string): Schema => ({
  type: 'array',
  items,
  xml: { wrapped: true },
  ...(description ? { description } : {}),
});

// Response schemas ------------------------------------------------------------------------------------------

/** A response object: every `required` property always appears; the others only as their description says. */
export function resource(
  xmlName: string,
  required: string[],
  properties: Record<string, Schema>,
  extra: Schema = {},
) {
  return {
    type: 'object',
    xml: { name: xmlName },
    required,
    properties,
    additionalProperties: false,
    ...extra,
  };
}

/**
 * The page envelope of `items` (docs/compat.md §4.1); in XML the root is the plural, items the singular.
 * `maxPageSize`: where a larger `pageSize` is clamped to.
 */
export function pageSchema(item: string, plural: string, maxPageSize = 1000): Schema {
  return resource(plural, ['page', 'pageSize', 'totalPages', 'totalItems', 'items'], {
    page: { ...int('Current page, from 1.'), examples: [1] },
    pageSize: {
      ...int(`Items per page (default 100, at most ${maxPageSize}: larger values are clamped).`),
      examples: [100],
    },
    totalPages: int('ceil(totalItems / pageSize); 0 when empty.'),
    totalItems: int('Items in all pages.'),
    items: arrayOf(ref(item)),
    nextCursor: str(
      'By cursor (`cursor=`): the cursor of the next page; absent on the last page. Flowboard addition.',
    ),
  });
}

/** An embedded user's properties, which every full user record (`resources/users.schemas.ts`) starts with. */
export const userRefProperties = {
  id: int(),
  name: str('Display name.'),
  userName: str(),
  email: str('E-mail address.'),
};

export const timestamp = ref('Timestamp');

// Request schemas (lenient: unknown and read-only fields are ignored) ------------------------------------------

const idOrObject = (kind: string, keys: string[]): Schema => ({
  description: `A ${kind} reference: ${keys.join(', ')}.`,
  anyOf: [
    { type: 'integer', minimum: 1 },
    { type: 'string', description: 'A numeric string is an id; any other string a name.' },
    { type: 'object', minProperties: 1, properties: Object.fromEntries(keys.map((k) => [k, {}])) },
  ],
});
/** A reference by id alone: a number, a string holding one, or `{id}`. */
const idReference = (description: string): Schema => ({
  description,
  anyOf: [
    { type: 'integer', minimum: 1 },
    { type: 'string' },
    { type: 'object', required: ['id'], properties: { id: {} } },
  ],
});
export const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
/**
 * A request object. Its optional fields also take null, read as "unset" (docs/compat.md §1.4: it clears
 * `owner`, `deadline`, `limit`, `blockedReason`; elsewhere it is as if the field were absent). Required
 * fields do not.
 */
export const body = (
  xmlName: string,
  properties: Record<string, Schema>,
  required: string[] = [],
): Schema => ({
  type: 'object',
  xml: { name: xmlName },
  ...(required.length ? { required } : {}),
  properties: Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [
      name,
      required.includes(name) || acceptsNull(schema) ? schema : nullable(schema),
    ]),
  ),
});
const acceptsNull = (schema: Schema): boolean =>
  (Array.isArray(schema.anyOf) && (schema.anyOf as Schema[]).some((s) => s.type === 'null')) ||
  (Array.isArray(schema.type) && schema.type.includes('null'));
export const text = (max: number): Schema => ({ type: 'string', maxLength: max });
/**
 * JavaScript's white space, what `trim()` removes and `\\s` matches: the services trim what they read (a required
 * text of only these is blank, 400) and the filter tokenizer splits on it. Spelled out for a regex character class,
 * so that every engine (Python's `\\s` differs) reads a pattern the same way.
 */
export const TRIMMED =
  '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** A required text: at least one character that is not white space; at most `max` characters. */
export const nonBlank = (max?: number, description?: string): Schema => ({
  type: 'string',
  minLength: 1,
  ...(max ? { maxLength: max } : {}),
  pattern: `[^${TRIMMED}]`,
  ...(description ? { description } : {}),
});
/** The addresses the services accept (zod's e-mail rule), at most 254 characters. */
export const email: Schema = {
  type: 'string',
  maxLength: 254,
  pattern:
    "^(?!\\.)(?!.*\\.\\.)([A-Za-z0-9_'+\\-\\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$",
};
/** An array as XML writes it (docs/compat.md §2): a wrapper element with one singular element per item. */
export const xmlArray = (items: Schema, wrapper: string, item: string, description?: string): Schema => ({
  type: 'array',
  xml: { name: wrapper, wrapped: true },
  items: { ...items, xml: { name: item } },
  ...(description ? { description } : {}),
});

// The shapes every resource shares --------------------------------------------------------------------------

export const SHARED_SCHEMAS: ResourceSchemas = {
  responses: {
    Timestamp: {
      type: 'string',
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
      description: '`YYYY-MM-DDTHH:MM:SS`, UTC, whole seconds, no zone designator (docs/compat.md §1.5).',
      examples: ['2011-02-17T18:47:16'],
    },
    AccessLevel: { type: 'string', enum: ['none', 'read', 'readwrite', 'admin'] },
    Color: {
      type: 'string',
      enum: ['grey', 'blue', 'red', 'green', 'orange', 'yellow', 'purple', 'teal'],
    },
    NamedRef: resource('ref', ['id', 'name'], { id: int(), name: str() }, { description: '`{id, name}`.' }),
    StorySummary: resource('story', ['id', 'text'], { id: int(), text: str() }),
    UserRef: resource('user', ['id', 'name', 'userName', 'email'], userRefProperties, {
      description: 'An embedded user: exactly `{id, name, userName, email}` (docs/compat.md §5.1).',
    }),
  },
  requests: {
    UserReference: idOrObject('user', ['id', 'userName', 'username']),
    PhaseReference: idOrObject('phase', ['id', 'name']),
    TagReference: idOrObject('tag', ['id', 'name']),
    StoryReference: idReference('A story id or `{id}`.'),
    ItemReference: idReference('An id or `{id}`.'),
  },
};
