import { ref, TRIMMED, type Schema } from '../schema';
import {
  documentedPath,
  takesIdempotencyKey,
  type FilterSet,
  type Operation as DeclaredOperation,
} from '../operation';
import { scopeName } from '../../authz/scopes';
import { IDEMPOTENCY_KEY_PATTERN } from '../../wire/idempotency-key';
import { ENRICHMENTS, OPERATIONS } from '../resources';
import { componentSchemas } from './components';
import { FILTERS, TAGS } from './descriptions';

/**
 * The OpenAPI 3.1 document of the whole API, assembled from the operations each resource declares
 * (resources/*.routes.ts), the groups and filter texts (descriptions.ts) and the shapes (components.ts, from
 * ../schema.ts and resources/*.schemas.ts).
 */
/** A declared operation as the document spells it: `get`, `/projects/{projectId}`. */
type Operation = Omit<DeclaredOperation, 'method' | 'path'> & {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
};

function documented(op: DeclaredOperation): Operation {
  if (!TAGS.some((tag) => tag.name === op.tag))
    throw new Error(`${op.operationId}: no group named ${op.tag}`);
  return {
    ...op,
    method: op.method.toLowerCase() as Operation['method'],
    path: documentedPath(op.path),
    idempotencyKey: takesIdempotencyKey(op),
  };
}

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Schema>> };

const JSON_TYPE = 'application/json';
const XML_TYPE = 'application/xml';
const PROBLEM_TYPE = 'application/problem+json';
const EVENT_STREAM_TYPE = 'text/event-stream';

/** Both representations of one schema. */
const both = (schema: Schema): Schema => ({ [JSON_TYPE]: { schema }, [XML_TYPE]: { schema } });

const problem = (description: string, headers?: Schema): Schema => ({
  description,
  ...(headers ? { headers } : {}),
  content: { [PROBLEM_TYPE]: { schema: ref('Problem') }, [XML_TYPE]: { schema: ref('Problem') } },
});

const ERROR_RESPONSES: Record<string, Schema> = {
  BadRequest: problem(
    'Malformed body, invalid or missing field, unknown reference, bad page, filter or enrichment, or a broken rule.',
  ),
  Unauthorized: problem('The API key is missing, malformed, unknown or disabled.', {
    'WWW-Authenticate': { schema: { type: 'string', examples: ['Bearer realm="flowboard"'] } },
  }),
  PaymentRequired: problem('A plan limit: attachment storage, or collaborators (pending invites count).'),
  Forbidden: problem('Too little access on the project.'),
  NotFound: problem(
    'No such resource, or the caller is not a member of the project (existence is never revealed).',
  ),
  Conflict: problem(
    'A duplicate (name, userName, email, pending invite), a state conflict, or a request with this ' +
      'Idempotency-Key still in progress (`idempotent-request-in-progress`).',
  ),
  PreconditionFailed: problem(
    '`If-Match` names a version the resource is no longer at (`precondition-failed`); nothing was written.',
  ),
  UnprocessableContent: problem(
    'The Idempotency-Key was used before for a different request (`idempotency-key-reused`); nothing ran.',
  ),
  PayloadTooLarge: problem('A body or file over the limit.'),
  Gone: problem(
    'The changes after the position are no longer retained (`history-gone`): read the board again, then ' +
      'stream from now.',
  ),
  Error: problem('429 (rate limited, with `Retry-After`), 503 (a dependency is down) or 500.', {
    'Retry-After': { schema: { type: 'integer' }, description: 'Seconds, on 429 and sometimes 503.' },
  }),
};
const STATUS_RESPONSE: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  402: 'PaymentRequired',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  413: 'PayloadTooLarge',
  412: 'PreconditionFailed',
  422: 'UnprocessableContent',
};

const PATH_PARAMETERS: Record<string, Schema> = {
  projectId: { schema: { type: 'integer', minimum: 0 } },
  storyId: { schema: { type: 'integer', minimum: 0 }, description: 'Story id, unique within the project.' },
  phaseId: { schema: { type: 'integer', minimum: 0 } },
  taskId: { schema: { type: 'integer', minimum: 0 } },
  commentId: { schema: { type: 'integer', minimum: 0 } },
  attachmentId: { schema: { type: 'integer', minimum: 0 } },
  roleId: { schema: { type: 'integer', minimum: 0 } },
  inviteId: { schema: { type: 'integer', minimum: 0 } },
  webhookId: { schema: { type: 'integer', minimum: 0 } },
  deliveryId: { schema: { type: 'integer', minimum: 0 } },
  keyId: { schema: { type: 'integer', minimum: 0 } },
  userId: { schema: { type: 'integer', minimum: 0 } },
  user: { schema: { type: 'string' }, description: 'A user id or username.' },
  tag: {
    // A path segment is text either way: a number names a tag by id, anything else by name.
    schema: { type: ['integer', 'string'] },
    description: 'A tag id or its URL-encoded name (a number is tried as an id first).',
  },
  token: { schema: { type: 'string' }, description: 'The invite token from the e-mail.' },
};

const HEADER_PARAMETERS: Record<string, Schema> = {
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    description: '**Flowboard addition.** The ETag of a copy the client has: unchanged → 304 without a body.',
    schema: { type: 'string' },
    examples: { etag: { value: '"v3-9f86d081884c7d65"' } },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    description:
      '**Flowboard addition.** Writes only if the resource is still at the version of this ETag (any ' +
      'representation of that version: JSON, XML, any `with=`); else 412 and nothing is written. `*` or no ' +
      'header: unconditional.',
    schema: { type: 'string' },
    examples: { etag: { value: '"v3-9f86d081884c7d65"' } },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    description:
      '**Flowboard addition.** Makes a retry safe: the first answer is kept for 24 h and replayed ' +
      '(`Idempotent-Replayed: true`) for a retry with the same key and the same request; a different request ' +
      'with the key → 422; a retry while the first runs → 409. Keys are per caller; a quoted string (IETF ' +
      'httpapi draft) or bare: 1–255 visible ASCII characters without quotes or backslashes.',
    schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN },
    examples: { uuid: { value: '"8e03978e-40d5-43e8-bc93-6894a57f9324"' } },
  },
};

const QUERY_PARAMETERS: Record<string, Schema> = {
  page: {
    name: 'page',
    in: 'query',
    description: 'Page number, from 1 (default 1). Past the end: empty `items`, correct totals.',
    schema: { type: 'integer', minimum: 1, default: 1 },
  },
  pageSize: {
    name: 'pageSize',
    in: 'query',
    description: 'Items per page (default 100); above 1000 it is clamped to 1000.',
    schema: { type: 'integer', minimum: 1, default: 100 },
  },
  cursor: {
    name: 'cursor',
    in: 'query',
    description:
      '**Flowboard addition.** Pages by cursor instead of `page`: empty (`cursor=`) for the first page, then the ' +
      '`nextCursor` of the previous page until a page has none. Items come in id (creation) order, and a walk ' +
      'neither skips nor repeats an item that exists throughout it, whatever is inserted, moved or deleted ' +
      'meanwhile. `page` in the answer is the page number within the walk. Keep `where` and `pageSize`-independent: ' +
      'a cursor of another list or another `where`, an altered one, or one with `page` → 400.',
    schema: { type: 'string', maxLength: 4096 },
  },
};

/**
 * The properties of each filter whose values are free (any text): the pattern's terms. `id` and `deadline` take
 * typed values and are left to the description.
 */
const FILTER_TERMS: Record<FilterSet, string[]> = {
  story: ['text', 'details', 'color', 'size', 'priority', 'status', 'phase', 'owner', 'creator', 'tag'],
  project: ['name'],
  role: ['name'],
  phase: ['name'],
  user: ['name', 'userName', 'email'],
};
const FILTER_EXAMPLES: Record<FilterSet, { name: string; value: string }> = {
  story: { name: 'tautology', value: 'not(color:red)' },
  project: { name: 'byName', value: 'name:"Sudden Valley"' },
  role: { name: 'byName', value: 'name:Members' },
  phase: { name: 'byName', value: 'name:Backlog' },
  user: { name: 'byUserName', value: 'userName:gob' },
};

/** Boards refuses longer filters (FILTER_LIMITS of @flowboard/filter, which the gateway does not load). */
const FILTER_MAX_LENGTH = 4000;

/** Where a bare filter value ends: white space (and \\u001c-\\u001f, which Python's `\\s` also counts). */
const SPACE = `${TRIMMED}\\u001c-\\u001f`;

/**
 * The plain forms of the filter grammar (docs/compat.md §4.2) as a regex: what a generated filter must look
 * like. Blank means no filter, except where one is required.
 */
function filterPattern(properties: string[], required = false): string {
  const term = `(?:${properties.join('|')}):(?:[^${SPACE}()"\\u0000]+|"[^"\\\\\\u0000]*")`;
  const flat = `${term}(?: (?:and|or) ${term})*`;
  const unary = `(?:not\\(${flat}\\)|\\(${flat}\\)|${term})`;
  const expr = `${unary}(?: (?:and|or) ${unary})*`;
  return required ? `^${expr}$` : `^(?:${expr})?$`;
}

/** `where` for one filter set; a required one (the bulk update) is also non-blank. */
function whereParameter(set: FilterSet, required: boolean): Schema {
  const example = FILTER_EXAMPLES[set];
  return {
    name: 'where',
    in: 'query',
    ...(required ? { required: true } : {}),
    description:
      'A filter: `property:value` terms combined with `and`, `or`, `not(...)` and parentheses; values may be ' +
      `quoted. Properties: ${FILTERS[set]} Unknown property → 400; unknown value matches nothing. ` +
      (required ? 'Required. ' : 'Blank: no filter. ') +
      'The pattern states the plain forms (lower-case keywords, one level of parentheses, quoted values without ' +
      'escapes); any case, deeper nesting and `\\"` escapes are accepted too.',
    schema: {
      type: 'string',
      ...(required ? { minLength: 1 } : {}),
      maxLength: FILTER_MAX_LENGTH,
      pattern: filterPattern(FILTER_TERMS[set], required),
    },
    examples: { [example.name]: { value: example.value } },
  };
}

/** Parameter component name → parameter, for path, page, where and each enrichment vocabulary. */
function parameters(): Record<string, Schema> {
  const out: Record<string, Schema> = { ...QUERY_PARAMETERS, ...HEADER_PARAMETERS };
  for (const [name, p] of Object.entries(PATH_PARAMETERS))
    out[name] = { name, in: 'path', required: true, ...p };
  for (const set of Object.keys(FILTERS) as FilterSet[]) out[`where.${set}`] = whereParameter(set, false);
  for (const [set, names] of Object.entries(ENRICHMENTS)) {
    const all = [...names, 'everything'];
    out[`with.${set}`] = {
      name: 'with',
      in: 'query',
      description:
        `Enrichments, comma-separated, case-insensitive: ${all.map((n) => `\`${n}\``).join(', ')}. ` +
        'Unknown name → 400.',
      style: 'form',
      explode: false,
      // An empty name (`with=`, `with=tags,`) is skipped, so it is part of the vocabulary.
      schema: { type: 'array', items: { type: 'string', enum: [...all, ''] } },
    };
  }
  return out;
}

const paramRef = (name: string): Schema => ({ $ref: `#/components/parameters/${name}` });

const ACCESS_TEXT: Record<Operation['access'], string> = {
  Read: 'Access: Read on the project.',
  ReadWrite: 'Access: ReadWrite on the project.',
  Admin: 'Access: Admin on the project.',
  key: 'Access: any valid API key.',
  public: 'No API key needed.',
  operator: 'The operator token (`Authorization: Bearer <OPERATOR_TOKEN>`), not an API key.',
};

function operation(op: Operation): Schema {
  const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => paramRef(m[1] as string));
  // The bulk update needs its filter; everywhere else a missing one means no filter.
  if (op.where && op.method === 'put') params.push(whereParameter(op.where, true));
  else if (op.where) params.push(paramRef(`where.${op.where}`));
  if (op.with) params.push(paramRef(`with.${op.with}`));
  if (op.paged || (typeof op.ok === 'object' && 'page' in op.ok))
    params.push(paramRef('page'), paramRef('pageSize'));
  if (op.cursor) params.push(paramRef('cursor'));

  params.push(...(op.parameters ?? []));
  if (op.idempotencyKey) params.push(paramRef('IdempotencyKey'));
  if (op.conditional) params.push(paramRef(op.method === 'get' ? 'IfNoneMatch' : 'IfMatch'));

  const projectScoped = op.access === 'Read' || op.access === 'ReadWrite' || op.access === 'Admin';
  const statuses = new Set<number>([400, ...(op.errors ?? [])]);
  if (op.idempotencyKey) statuses.add(409).add(422);
  if (op.conditional && op.method !== 'get') statuses.add(412);
  if (op.access !== 'public') statuses.add(401);
  if (projectScoped) statuses.add(403).add(404);
  if (op.path.includes('{') && !projectScoped) statuses.add(404);
  if (op.body) statuses.add(413);
  if (op.access === 'public') statuses.add(404); // sign-up switched off

  const responses: Record<string, Schema> = { '200': success(op) };
  if (op.conditional && op.method === 'get') {
    responses['304'] = {
      description: "Not modified: the `If-None-Match` ETag is the resource's current one. No body.",
      headers: { ...REQUEST_ID, ...ETAG },
    };
  }
  for (const status of [...statuses].sort()) {
    responses[String(status)] = { $ref: `#/components/responses/${STATUS_RESPONSE[status]}` };
  }
  responses.default = { $ref: '#/components/responses/Error' };

  const description = [
    op.addition ? '**Flowboard addition** (not in the original API).' : '',
    op.description ?? '',
  ]
    .concat(ACCESS_TEXT[op.access])
    .filter(Boolean)
    .join(' ');
  return {
    operationId: op.operationId,
    summary: op.summary,
    description,
    tags: [op.tag],
    ...(op.access === 'public' ? { security: [] } : {}),
    ...(op.access === 'operator' ? { security: [{ operatorToken: [] }] } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(op.body ? { requestBody: requestBody(op) } : {}),
    responses,
    'x-flowboard-access': op.access,
    // The scope a key needs (README "Scoped API keys"); a key without it gets 403 `insufficient-scope`.
    ...(op.scope ? { 'x-flowboard-scope': scopeName(op.scope) } : {}),
    ...(op.addition ? { 'x-flowboard-addition': true } : {}),
  };
}

/**
 * A PUT of an object is a partial update: without a body nothing changes (200). Every other body is required:
 * creates need their fields, and an array replaces a whole set (a missing one is 400, not "none").
 */
function requestBody(op: Operation): Schema {
  const schema = ref(op.body as string);
  if (op.multipart) return { required: true, content: { 'multipart/form-data': { schema } } };
  return { required: !PARTIAL_UPDATES.has(op.body as string), content: both(schema) };
}
const PARTIAL_UPDATES = new Set([
  'MeUpdate',
  'ProjectUpdate',
  'StoryUpdate',
  'PhaseUpdate',
  'TagRename',
  'TaskUpdate',
  'CommentUpdate',
  'AttachmentRename',
  'RoleUpdate',
  'WebhookUpdate',
  // Every field optional, and no body at all makes a key as before scopes.
  'ApiKeyCreate',
]);

const REQUEST_ID = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
const ETAG = {
  ETag: {
    description:
      '**Flowboard addition.** Strong: `"v<version>-<digest>"`, the version the service keeps for the resource ' +
      'and a digest of this representation.',
    schema: { type: 'string' },
  },
};

const CHANGES = { 'Flowboard-Changes': { $ref: '#/components/headers/Changes' } };

function success(op: Operation): Schema {
  if (op.ok === 'empty') {
    return {
      description: 'Deleted: an empty body, `Content-Length: 0`, no `Content-Type`.',
      headers: REQUEST_ID,
    };
  }
  if (op.ok === 'bytes') {
    return {
      description: 'The stored bytes.',
      headers: {
        ...REQUEST_ID,
        'Content-Disposition': {
          schema: { type: 'string' },
          examples: { file: { value: 'attachment; filename="plans.txt"' } },
        },
      },
      content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
    };
  }
  if ('stream' in op.ok) {
    return {
      description:
        'OK: with `Accept: text/event-stream`, an event stream (never compressed, never cached); else the ' +
        'long-poll answer.',
      headers: REQUEST_ID,
      content: {
        ...both(ref(op.ok.stream)),
        [EVENT_STREAM_TYPE]: {
          schema: {
            type: 'string',
            description:
              'Server-sent events: blocks of `event:`, `id:` and `data:` lines (the `data` a ChangePayload as ' +
              'JSON), each ended by a blank line; comment lines (`: keep-alive`) in between.',
          },
          examples: {
            change: {
              value:
                'retry: 3000\nid: 1-3-1f3\n\nevent: story.moved\nid: 1-3-1f4\ndata: {"id":"…","type":"story.moved",…}\n\n',
            },
          },
        },
      },
    };
  }
  const schema = 'page' in op.ok ? ref(`${op.ok.page}Page`) : ref(op.ok.one);
  const headers = {
    ...REQUEST_ID,
    ...(op.conditional ? ETAG : {}),
    ...(op.method === 'get' ? {} : CHANGES),
  };
  return { description: 'OK (every success is 200).', headers, content: both(schema) };
}

const INFO_DESCRIPTION = `
The Flowboard board API: projects, phases (board columns), stories (cards) with tags, tasks, comments and
attachments, roles and invites. It is the public AgileZen API v1; items marked **Flowboard addition** go beyond it.

- **Formats.** Every request and response body is JSON or XML with the same fields (XML: element names equal the
  JSON names, children in alphabetical order, arrays wrapped). The response format is picked by a \`.json\`/\`.xml\`
  suffix on the last path segment (\`/api/v1/me.xml\`), else \`Accept\`, else the request \`Content-Type\`, else JSON.
- **Credentials.** An API key in \`X-Zen-ApiKey\`, \`Authorization: Bearer\`, or the \`apikey\` query argument.
- **Successes** are always 200. Deletes answer an empty body. Timestamps are \`YYYY-MM-DDTHH:MM:SS\` in UTC.
- **Errors** are problem details (\`application/problem+json\`, or \`<error>\` in XML) with a \`requestId\`.
- Paths ignore trailing and duplicate slashes; \`HEAD\` works like \`GET\`; a wrong method gets 405 with \`Allow\`.
`.trim();

let cached: OpenApiDocument | undefined;

/** The document (built once; it is immutable). */
export function openApiDocument(): OpenApiDocument {
  cached ??= build();
  return cached;
}

function build(): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const op of OPERATIONS.map(documented)) (paths[op.path] ??= {})[op.method] = operation(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Flowboard API',
      version: '1',
      summary: 'Project boards (kanban), AgileZen API v1 compatible.',
      description: INFO_DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: '/', description: 'This gateway' }],
    security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }, { bearer: [] }],
    tags: TAGS,
    paths,
    components: {
      schemas: componentSchemas(),
      parameters: parameters(),
      responses: ERROR_RESPONSES,
      headers: {
        RequestId: {
          description: 'The request id (also `requestId` in error bodies).',
          schema: { type: 'string' },
        },
        Changes: {
          description:
            '**Flowboard addition.** The changes this write made, in order: their event ids, comma-separated, each ' +
            'the `id` of that change on the change stream (`GET /api/v1/projects/{projectId}/events`) and in ' +
            'webhook deliveries, so a client recognises its own changes there. Absent when nothing changed. Also ' +
            'on an error answer when a write made some of its changes before it failed.',
          schema: { type: 'string', example: '0b5c1f9e-8f0a-4d57-9a43-2f7c2c5d1e6a' },
        },
      },
      securitySchemes: {
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Zen-ApiKey', description: 'Preferred.' },
        apiKeyQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'apikey',
          description: 'Any case (`apiKey` is common).',
        },
        bearer: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token.' },
        operatorToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The operator token of the deployment (operator endpoints only).',
        },
      },
    },
  };
}
