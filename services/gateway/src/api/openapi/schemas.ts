/**
 * The API's shapes as JSON Schema 2020-12 (OpenAPI 3.1 `components.schemas`). Responses are strict
 * (`additionalProperties: false`): an enrichment that was not requested never appears (docs/compat.md §4.3),
 * so the e2e contract check catches a stray field. Request bodies are lenient, as the gateway is (§1.4:
 * read-only and unknown fields are ignored).
 */
import { RESOURCE_EVENT_TYPES } from '@flowboard/events';

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
const int = (description?: string): Schema => ({ type: 'integer', ...(description ? { description } : {}) });
const arrayOf = (items: Schema, description?: string): Schema => ({
  type: 'array',
  items,
  xml: { wrapped: true },
  ...(description ? { description } : {}),
});

/** A response object: every `required` property always appears; the others only as their description says. */
function resource(
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
  });
}

/** Resources that have a page form: schema name → XML root of the page. */
export const PAGED: Record<string, string> = {
  Project: 'projects',
  Story: 'stories',
  Phase: 'phases',
  Tag: 'tags',
  Task: 'tasks',
  Comment: 'comments',
  Attachment: 'attachments',
  Role: 'roles',
  Invite: 'invites',
  User: 'users',
  ApiKey: 'apiKeys',
  Webhook: 'webhooks',
  Delivery: 'deliveries',
};
/** Pages smaller than 1000 at most: deliveries carry their attempts, and the webhooks service pages them by 100. */
const MAX_PAGE_SIZE: Record<string, number> = { Delivery: 100 };

const userRefProperties = {
  id: int(),
  name: str('Display name.'),
  userName: str(),
  email: str('E-mail address.'),
};

const timestamp = ref('Timestamp');
const named = (description: string): Schema => ({ ...ref('NamedRef'), description });

const webhookProperties = {
  id: int(),
  url: str('The receiver (normalised).'),
  eventTypes: {
    type: 'array',
    xml: { wrapped: true },
    items: { type: 'string', xml: { name: 'eventType' } },
    description: 'The event types delivered; empty = every type.',
  },
  active: { type: 'boolean', description: 'false: nothing is sent.' },
  description: str('`""` when empty.'),
  disabledReason: str('Why the service disabled it (its deliveries failed for a day); only then.'),
  createTime: timestamp,
  updateTime: timestamp,
};

// Response schemas ------------------------------------------------------------------------------------------

const responses: Record<string, Schema> = {
  Timestamp: {
    type: 'string',
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
    description: '`YYYY-MM-DDTHH:MM:SS`, UTC, whole seconds, no zone designator (docs/compat.md §1.5).',
    examples: ['2011-02-17T18:47:16'],
  },
  AccessLevel: { type: 'string', enum: ['none', 'read', 'readwrite', 'admin'] },
  Color: { type: 'string', enum: ['grey', 'blue', 'red', 'green', 'orange', 'yellow', 'purple', 'teal'] },
  NamedRef: resource('ref', ['id', 'name'], { id: int(), name: str() }, { description: '`{id, name}`.' }),
  StorySummary: resource('story', ['id', 'text'], { id: int(), text: str() }),
  UserRef: resource('user', ['id', 'name', 'userName', 'email'], userRefProperties, {
    description: 'An embedded user: exactly `{id, name, userName, email}` (docs/compat.md §5.1).',
  }),
  User: resource(
    'user',
    ['id', 'name', 'userName', 'email', 'bio', 'createTime'],
    {
      ...userRefProperties,
      bio: str('`""` when empty.'),
      createTime: timestamp,
      stories: arrayOf(ref('StorySummary'), 'With `with=stories` (`/me` only): the stories the caller owns.'),
    },
    { description: 'A full user record (`/me`, sign-up, member pages).' },
  ),
  SignedUpUser: resource(
    'user',
    ['id', 'name', 'userName', 'email', 'bio', 'createTime', 'apiKey'],
    {
      ...userRefProperties,
      bio: str(),
      createTime: timestamp,
      apiKey: { type: 'string', pattern: '^[0-9a-f]{32}$', description: 'A first API key; shown only here.' },
    },
    { description: 'Flowboard addition: the full user record plus a first API key.' },
  ),
  UserStatus: resource(
    'user',
    ['id', 'name', 'userName', 'email', 'bio', 'createTime', 'enabled'],
    {
      ...userRefProperties,
      bio: str(),
      createTime: timestamp,
      enabled: { type: 'boolean', description: 'false: every API key of the user is refused.' },
    },
    { description: 'Flowboard addition (operator): the full user record plus `enabled`.' },
  ),
  ApiKey: resource(
    'apiKey',
    ['id', 'createTime', 'enabled', 'hint'],
    {
      id: int(),
      createTime: timestamp,
      enabled: { type: 'boolean' },
      hint: str('The last 4 characters of the key.'),
      key: {
        type: 'string',
        pattern: '^[0-9a-f]{32}$',
        description: 'The full key: only in the create response.',
      },
    },
    { description: 'Flowboard addition.' },
  ),
  Account: resource(
    'account',
    ['id', 'collaboratorsUsed', 'storageLimitBytes', 'storageUsedBytes'],
    {
      id: int("The owner's user id."),
      collaboratorLimit: int('Omitted in JSON (`<collaboratorLimit />` in XML) when there is no limit.'),
      collaboratorsUsed: int('Non-owner members of its projects plus pending invited addresses.'),
      storageLimitBytes: int(),
      storageUsedBytes: int('Stored attachments plus uploads in flight.'),
    },
    {
      description:
        'Flowboard addition: an account (one per user, holding the projects the user owns), its effective limits ' +
        'and what is in use.',
    },
  ),
  ProjectMetrics: resource(
    'metrics',
    ['throughput', 'leadTime', 'cycleTime', 'workTime', 'blockedTime', 'waitTime', 'efficiency'],
    {
      throughput: int('Stories that entered Archive in the window.'),
      leadTime: { type: 'number' },
      cycleTime: { type: 'number' },
      workTime: { type: 'number' },
      blockedTime: { type: 'number' },
      waitTime: { type: 'number' },
      efficiency: { type: 'number', description: 'Percent, one decimal.' },
    },
    {
      description:
        'Seconds (means over the window), except `throughput` and `efficiency` (docs/compat.md §5.2).',
    },
  ),
  StoryMetrics: resource(
    'metrics',
    ['createTime'],
    {
      createTime: timestamp,
      startTime: timestamp,
      finishTime: timestamp,
      leadTime: int(),
      cycleTime: int(),
      workTime: int(),
      blockedTime: int(),
      waitTime: int(),
      efficiency: { type: 'number' },
    },
    { description: 'Times are present once reached; durations (seconds) once the story is finished.' },
  ),
  Project: resource('project', ['id', 'name', 'description', 'createTime', 'owner'], {
    id: int(),
    name: str(),
    description: str('`""` when empty.'),
    details: str('Markdown; with `with=details`.'),
    createTime: timestamp,
    owner: ref('UserRef'),
    members: arrayOf(ref('UserRef'), 'With `with=members`.'),
    phases: arrayOf(ref('Phase'), 'With `with=phases`, in index order.'),
    roles: arrayOf(ref('Role'), 'With `with=roles`.'),
    invites: arrayOf(ref('Invite'), 'With `with=invites` (Admin only).'),
    metrics: { ...ref('ProjectMetrics'), description: 'With `with=metrics`.' },
  }),
  Story: resource(
    'story',
    ['id', 'text', 'size', 'color', 'priority', 'status', 'project', 'phase', 'creator'],
    {
      id: int('Unique within the project.'),
      text: str(),
      details: str('Markdown; with `with=details`.'),
      size: str('`""` when unset.'),
      color: ref('Color'),
      priority: str('`""` when unset.'),
      deadline: { ...timestamp, description: 'Only when set.' },
      status: { type: 'string', enum: ['planned', 'started', 'ready', 'blocked', 'finished'] },
      blockedReason: str('Only while `blocked`.'),
      project: named('The project.'),
      phase: named('The phase the story sits in.'),
      creator: ref('UserRef'),
      owner: { ...ref('UserRef'), description: 'The assigned user; omitted when nobody is.' },
      tags: arrayOf(ref('Tag'), 'With `with=tags`.'),
      tasks: arrayOf(ref('Task'), 'With `with=tasks`.'),
      comments: arrayOf(ref('Comment'), 'With `with=comments`.'),
      milestones: arrayOf(ref('Milestone'), 'With `with=milestones`: one per stay in a phase, oldest first.'),
      steps: arrayOf(ref('Step'), 'With `with=steps`: one per status period, oldest first.'),
      metrics: { ...ref('StoryMetrics'), description: 'With `with=metrics`.' },
    },
  ),
  Milestone: resource('milestone', ['id', 'phase', 'startTime', 'duration'], {
    id: int(),
    phase: ref('NamedRef'),
    startTime: timestamp,
    endTime: { ...timestamp, description: 'Absent on the open milestone.' },
    duration: int('Seconds; the open one runs to now.'),
  }),
  Step: resource('step', ['id', 'type', 'startTime', 'duration'], {
    id: int(),
    type: { type: 'string', enum: ['backlog', 'working', 'ready', 'blocked', 'archive'] },
    startTime: timestamp,
    endTime: { ...timestamp, description: 'Absent on the open step.' },
    duration: int('Seconds.'),
  }),
  Phase: resource('phase', ['id', 'name', 'description', 'index'], {
    id: int(),
    name: str(),
    description: str(),
    index: int('Zero-based position: Backlog is 0, Archive last.'),
    limit: {
      type: 'integer',
      minimum: 1,
      description: 'Work-in-progress limit (advisory). Unset: omitted in JSON, `<limit />` in XML.',
    },
    stories: arrayOf(ref('Story'), 'With `with=stories`, and always on `P/phases/{phaseId}/stories`.'),
  }),
  Tag: resource('tag', ['id', 'name'], {
    id: int(),
    name: str(),
    stories: arrayOf(ref('StorySummary'), 'With `with=stories`.'),
  }),
  Task: resource('task', ['id', 'text', 'status', 'createTime'], {
    id: int(),
    text: str(),
    status: { type: 'string', enum: ['incomplete', 'complete'] },
    createTime: timestamp,
    finishTime: { ...timestamp, description: 'While complete.' },
    finishedBy: { ...ref('UserRef'), description: 'While complete.' },
  }),
  Comment: resource('comment', ['id', 'text', 'createTime', 'author'], {
    id: int(),
    text: str(),
    createTime: timestamp,
    author: ref('UserRef'),
  }),
  Attachment: resource('attachment', ['id', 'fileName', 'sizeInBytes', 'contentType', 'token'], {
    id: int(),
    fileName: str(),
    sizeInBytes: int(),
    contentType: str('Media type.'),
    token: {
      type: 'string',
      pattern: '^[0-9a-f]{32}$',
      description: 'Opaque storage key, never a credential.',
    },
  }),
  Role: resource('role', ['id', 'name', 'access', 'members'], {
    id: int(),
    name: str(),
    access: ref('AccessLevel'),
    members: arrayOf(ref('UserRef')),
  }),
  Invite: resource('invite', ['id', 'createTime', 'email', 'token', 'sender', 'role'], {
    id: int(),
    createTime: timestamp,
    email: str(),
    token: str('Opaque; the invited person accepts with it.'),
    sender: ref('UserRef'),
    role: ref('NamedRef'),
  }),
  Webhook: resource(
    'webhook',
    ['id', 'url', 'eventTypes', 'active', 'description', 'createTime', 'updateTime'],
    webhookProperties,
    { description: 'Flowboard addition: a project webhook. Its signing secret is shown only when created.' },
  ),
  CreatedWebhook: resource(
    'webhook',
    ['id', 'url', 'eventTypes', 'active', 'description', 'createTime', 'updateTime', 'secret'],
    {
      ...webhookProperties,
      secret: {
        type: 'string',
        pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
        description:
          'The signing secret (Standard Webhooks): `whsec_` + base64 of the HMAC-SHA256 key. Shown only here.',
      },
    },
    { description: 'Flowboard addition: the webhook just created, with its signing secret.' },
  ),
  Delivery: resource(
    'delivery',
    ['id', 'eventId', 'eventType', 'attempt', 'status', 'createTime', 'attempts'],
    {
      id: int(),
      eventId: str('The event id, sent as `webhook-id`: the same on every attempt and redelivery.'),
      eventType: str('`story.created`, … or `webhook.ping`.'),
      attempt: int('Attempts made so far (0 before the first).'),
      status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
      responseStatusCode: int("The latest attempt's HTTP status; omitted when no response came back."),
      latencyMs: int("The latest attempt's duration; omitted before the first attempt."),
      error: str('Why the latest attempt (or the delivery) failed; omitted otherwise.'),
      attemptedAt: { ...timestamp, description: 'The latest attempt; omitted before the first.' },
      nextAttemptAt: {
        ...timestamp,
        description:
          'When the next attempt is due; only while one is scheduled (pending, not queued behind another).',
      },
      createTime: timestamp,
      attempts: arrayOf(ref('DeliveryAttempt'), 'Every attempt, newest first.'),
    },
    { description: 'Flowboard addition: one event sent to one webhook, with its attempts.' },
  ),
  DeliveryAttempt: resource('attempt', ['attempt', 'status', 'latencyMs', 'attemptedAt'], {
    attempt: int('From 1.'),
    status: { type: 'string', enum: ['succeeded', 'failed'] },
    responseStatusCode: int('Omitted when no response came back.'),
    latencyMs: int(),
    error: str('Omitted after a success.'),
    attemptedAt: timestamp,
  }),
  DeliveryReference: resource(
    'delivery',
    ['id'],
    { id: int() },
    { description: "The queued delivery's id (see it in the webhook's deliveries)." },
  ),
  Problem: resource(
    'error',
    ['type', 'title', 'status', 'detail', 'requestId'],
    {
      type: {
        type: 'string',
        pattern: '^urn:flowboard:problem:[a-z-]+$',
        examples: ['urn:flowboard:problem:not-found'],
      },
      title: str(),
      status: int(),
      detail: str('Names the offending field, property, enrichment or argument.'),
      requestId: str('Equals the `X-Request-Id` header.'),
    },
    {
      description:
        'Problem details (RFC 9457) plus `requestId`; in XML `<error>` with the same children in alphabetical ' +
        'order (docs/compat.md §3.4). Flowboard addition.',
    },
  ),
};

// Request schemas (lenient: unknown and read-only fields are ignored) ------------------------------------------

const idOrObject = (kind: string, keys: string[]): Schema => ({
  description: `A ${kind} reference: ${keys.join(', ')}.`,
  anyOf: [
    { type: 'integer', minimum: 1 },
    { type: 'string', description: 'A numeric string is an id; any other string a name.' },
    { type: 'object', minProperties: 1, properties: Object.fromEntries(keys.map((k) => [k, {}])) },
  ],
});
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
/**
 * A request object. Its optional fields also take null, read as "unset" (docs/compat.md §1.4: it clears
 * `owner`, `deadline`, `limit`, `blockedReason`; elsewhere it is as if the field were absent). Required
 * fields do not.
 */
const body = (xmlName: string, properties: Record<string, Schema>, required: string[] = []): Schema => ({
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
const text = (max: number): Schema => ({ type: 'string', maxLength: max });
/**
 * JavaScript's white space, what `trim()` removes and `\\s` matches: the services trim what they read (a required
 * text of only these is blank, 400) and the filter tokenizer splits on it. Spelled out for a regex character class,
 * so that every engine (Python's `\\s` differs) reads a pattern the same way.
 */
export const TRIMMED =
  '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** A required text: at least one character that is not white space; at most `max` characters. */
const nonBlank = (max?: number, description?: string): Schema => ({
  type: 'string',
  minLength: 1,
  ...(max ? { maxLength: max } : {}),
  pattern: `[^${TRIMMED}]`,
  ...(description ? { description } : {}),
});
/** A tag name: non-blank and without control characters (names travel in paths and XML). */
const tagName: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  pattern: `^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\u0000-\\u001f\\u007f-\\u009f${TRIMMED}][^\\u0000-\\u001f\\u007f-\\u009f]*$`,
  description: 'Trimmed; unique in the project ignoring case; no control characters.',
};
/** The addresses the services accept (zod's e-mail rule), at most 254 characters. */
const email: Schema = {
  type: 'string',
  maxLength: 254,
  pattern:
    "^(?!\\.)(?!.*\\.\\.)([A-Za-z0-9_'+\\-\\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$",
};
const userName: Schema = { type: 'string', pattern: '^[A-Za-z0-9._-]{1,200}$' };
/** A phase's WIP limit is an int32 in boards. */
const WIP_LIMIT_MAX = 2_147_483_647;
/** An account limit: exact as a JSON number and as an int64. */
const LIMIT: Schema = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
/** An array as XML writes it (docs/compat.md §2): a wrapper element with one singular element per item. */
const xmlArray = (items: Schema, wrapper: string, item: string, description?: string): Schema => ({
  type: 'array',
  xml: { name: wrapper, wrapped: true },
  items: { ...items, xml: { name: item } },
  ...(description ? { description } : {}),
});
/**
 * Dates as the services read them: a date, or a timestamp (RFC 3339 here; a space for `T`, no seconds and no zone
 * are accepted too). Impossible dates (Feb 30) are refused.
 */
const deadline: Schema = {
  anyOf: [
    { type: 'string', format: 'date' },
    { type: 'string', format: 'date-time' },
    { const: '', description: 'No deadline.' },
  ],
  description:
    'A date (`2011-02-24`) or a timestamp (`2011-02-24T18:00:00`; a zone is converted to UTC); flowboard addition.',
};
/** The operator's switches: `{enabled}` under the resource's XML root. */
const enabledBody = (xmlName: string): Schema =>
  body(xmlName, { enabled: { type: 'boolean', description: 'In XML: `true` or `false`.' } }, ['enabled']);
const stringish = { type: ['string', 'number'], description: 'Numbers are converted to strings.' };
/** What the webhooks service takes for a receiver's URL (its DNS and address checks come on top). */
const webhookUrl: Schema = {
  type: 'string',
  maxLength: 2000,
  pattern: `^[${TRIMMED}]*[Hh][Tt][Tt][Pp][Ss]?://[^${TRIMMED}/?#@]`,
  description:
    'An http(s) URL without credentials, at most 2,000 characters, whose host resolves to public addresses ' +
    '(private, loopback, link-local… are refused unless the operator allows them).',
};
const webhookEventTypes = xmlArray(
  { type: 'string', enum: [...RESOURCE_EVENT_TYPES] },
  'eventTypes',
  'eventType',
  'Event types to deliver; empty or absent: every type.',
);

const requests: Record<string, Schema> = {
  UserReference: idOrObject('user', ['id', 'userName', 'username']),
  PhaseReference: idOrObject('phase', ['id', 'name']),
  TagReference: idOrObject('tag', ['id', 'name']),
  StoryReference: {
    description: 'A story id or `{id}`.',
    anyOf: [
      { type: 'integer', minimum: 1 },
      { type: 'string' },
      { type: 'object', required: ['id'], properties: { id: {} } },
    ],
  },
  ItemReference: {
    description: 'An id or `{id}`.',
    anyOf: [
      { type: 'integer', minimum: 1 },
      { type: 'string' },
      { type: 'object', required: ['id'], properties: { id: {} } },
    ],
  },
  SignUpRequest: body(
    'user',
    {
      userName,
      email,
      name: { ...text(200), description: 'Defaults to userName.' },
    },
    ['userName', 'email'],
  ),
  MeUpdate: body('user', {
    name: nonBlank(200),
    username: { ...userName, description: 'Also accepted as `userName`.' },
    email,
    bio: text(100_000),
  }),
  ProjectCreate: body('project', { name: nonBlank(200), description: str(), details: str('Markdown.') }, [
    'name',
  ]),
  ProjectUpdate: body('project', {
    name: nonBlank(200),
    description: str(),
    details: str(),
    owner: { ...ref('UserReference'), description: 'The new owner; must be a member.' },
  }),
  StoryCreate: body(
    'story',
    {
      text: nonBlank(2000),
      details: str('Markdown.'),
      size: stringish,
      priority: stringish,
      color: { ...ref('Color'), description: 'Default `grey`; any case.' },
      phase: { ...ref('PhaseReference'), description: 'Default: Backlog.' },
      owner: ref('UserReference'),
      deadline,
      tags: xmlArray(ref('TagReference'), 'tags', 'tag', 'An unknown name creates the tag.'),
      tasks: xmlArray(
        { anyOf: [ref('TaskCreate'), nonBlank(2000, "A task's text alone.")] },
        'tasks',
        'task',
      ),
    },
    ['text'],
  ),
  StoryUpdate: body('story', {
    text: nonBlank(2000),
    details: str(),
    size: stringish,
    priority: stringish,
    color: ref('Color'),
    status: { type: 'string', enum: ['started', 'ready', 'blocked'], description: 'Only in a middle phase.' },
    blockedReason: nullable(text(1000)),
    phase: ref('PhaseReference'),
    owner: nullable(ref('UserReference')),
    deadline: nullable(deadline),
  }),
  PhaseCreate: body(
    'phase',
    {
      name: nonBlank(200),
      description: str(),
      index: {
        type: 'integer',
        minimum: 1,
        description: "1 … Archive's index; default: just before Archive.",
      },
      limit: { type: 'integer', minimum: 1, maximum: WIP_LIMIT_MAX },
    },
    ['name', 'description'],
  ),
  PhaseUpdate: body('phase', {
    name: nonBlank(200),
    description: str(),
    index: { type: 'integer', minimum: 1, description: "1 … Archive's index, for a middle phase." },
    limit: {
      anyOf: [{ type: 'integer', minimum: 1, maximum: WIP_LIMIT_MAX }, { type: 'null' }, { const: '' }],
      description: 'null removes.',
    },
  }),
  PhaseOrder: xmlArray(
    ref('PhaseReference'),
    'phases',
    'phase',
    'Every phase once, Backlog first, Archive last.',
  ),
  StoryOrder: xmlArray(ref('StoryReference'), 'stories', 'story', "Exactly the phase's stories."),
  StoryReferences: xmlArray(ref('StoryReference'), 'stories', 'story'),
  TagName: body('tag', { name: tagName }, ['name']),
  TagRename: body('tag', { name: tagName }),
  TagReferences: xmlArray(ref('TagReference'), 'tags', 'tag'),
  TaskCreate: body(
    'task',
    { text: nonBlank(2000), status: { type: 'string', enum: ['incomplete', 'complete'] } },
    ['text'],
  ),
  TaskUpdate: body('task', {
    text: nonBlank(2000),
    status: { type: 'string', enum: ['incomplete', 'complete'] },
  }),
  TaskOrder: xmlArray(ref('ItemReference'), 'tasks', 'task', 'Every task exactly once.'),
  CommentText: body('comment', { text: nonBlank(100_000) }, ['text']),
  CommentUpdate: body('comment', { text: nonBlank(100_000) }),
  AttachmentRename: body('attachment', {
    filename: nonBlank(
      undefined,
      'Also accepted as `fileName`. Stored as uploads are: the last path segment, without control characters. ' +
        'Over 200 characters (without the path), or with a NUL, it is a 400 `invalid-field`.',
    ),
  }),
  AttachmentUpload: {
    type: 'object',
    description:
      'One or more file parts (with a `filename`) under any field name: `file` here, `attachment` is usual too. ' +
      'Parts without a filename are form fields and are ignored. A file name is stored as its last path segment ' +
      "without control characters; over 200 characters (without the path), or a NUL in a part's headers or " +
      'file name, is a 400 `invalid-field`.',
    required: ['file'],
    // A part's name sits in its Content-Disposition header, where control characters are malformed (400).
    propertyNames: { pattern: '^[^\\u0000-\\u001f\\u007f]*$' },
    properties: { file: { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' } },
    additionalProperties: {
      anyOf: [
        { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' },
        {
          type: 'array',
          items: { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' },
        },
      ],
    },
  },
  RoleCreate: body(
    'role',
    { name: nonBlank(200), access: { ...ref('AccessLevel'), description: 'Default `none`.' } },
    ['name'],
  ),
  RoleUpdate: body('role', { name: nonBlank(200), access: ref('AccessLevel') }),
  UserReferences: xmlArray(ref('UserReference'), 'members', 'user'),
  InviteCreate: body('invite', { email, role: ref('ItemReference') }, ['email', 'role']),
  WebhookCreate: body(
    'webhook',
    {
      url: webhookUrl,
      eventTypes: webhookEventTypes,
      active: { type: 'boolean', description: 'Default true.' },
      description: text(500),
    },
    ['url'],
  ),
  WebhookUpdate: body('webhook', {
    url: webhookUrl,
    eventTypes: webhookEventTypes,
    active: { type: 'boolean', description: '`true` again clears `disabledReason`.' },
    description: text(500),
  }),
  UserEnabled: enabledBody('user'),
  ApiKeyEnabled: enabledBody('apiKey'),
  AccountLimits: {
    ...body('account', {
      collaboratorLimit: nullable({ ...LIMIT, description: 'null: back to the default.' }),
      storageLimitBytes: nullable({ ...LIMIT, description: 'null: back to the default.' }),
    }),
    minProperties: 1,
    description: 'At least one of the two.',
  },
};

export function componentSchemas(): Record<string, Schema> {
  const pages = Object.fromEntries(
    Object.entries(PAGED).map(([item, plural]) => [
      `${item}Page`,
      pageSchema(item, plural, MAX_PAGE_SIZE[item]),
    ]),
  );
  return { ...responses, ...pages, ...requests };
}
