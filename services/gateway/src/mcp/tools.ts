import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { takesIdempotencyKey, type Operation } from '../api/operation';
import type { Schema } from '../api/schema';
import { scopeName, type OperationScope } from '../authz/scopes';
import { IDEMPOTENCY_KEY_PATTERN } from '../wire/idempotency-key';
import { inlineSchema, namedSchema, type ComponentSchemas } from './schemas';

/**
 * The MCP tools, one per operation an agent should have, generated from the operations' declarations and the
 * OpenAPI document's shapes (so a tool cannot drift from the route it calls): name = operationId, input = the path
 * and query parameters + `body` (+ `version` for a conditional write, `idempotencyKey` where the route takes one),
 * output = the answer's shape (+ `version` for a resource with one). A declaration lacking what a tool needs
 * throws here, at the first listing (and in the unit tests), rather than giving an agent a tool it cannot call.
 */
export interface McpTool {
  name: string;
  operation: Operation;
  scope: OperationScope;
  /** In the path's order; `integer`: the route matches digits only. */
  pathParameters: ReadonlyArray<{ name: string; integer: boolean }>;
  /** Query arguments the tool passes on (arrays joined with commas, as `with=` takes them). */
  queryParameters: readonly string[];
  /** A conditional PUT or DELETE: `version` is required and sent as `If-Match`. */
  sendsVersion: boolean;
  /** A resource with a version answered: its `version` (from the ETag) joins the structured output. */
  answersVersion: boolean;
  /** Sends an Idempotency-Key: the agent's `idempotencyKey`, else one derived from the call (requests.ts). */
  sendsIdempotencyKey: boolean;
  /** The MCP listing. */
  definition: Tool;
}

/** The document's reusable parts the tools are made of. */
export interface ToolComponents {
  schemas: ComponentSchemas;
  /** The document's `components.parameters`: path parameters by name, `where.<set>`, `with.<set>`, paging. */
  parameters: Readonly<Record<string, Schema>>;
}

export interface LeftOut {
  operationId: string;
  reason: string;
}

/**
 * Operations no tool is made for, by rule, each with its reason (the README lists them). Besides these, the
 * change stream's server-sent-events form: its tool always long-polls (a tool call answers once).
 */
const LEAVE_OUT: ReadonlyArray<{
  applies: (op: Operation, components: ToolComponents) => boolean;
  reason: string;
}> = [
  {
    applies: (op) => op.access === 'public' || op.access === 'operator',
    reason: "takes no API key (sign-up) or the operator's token: nothing an agent's key may call",
  },
  {
    applies: (op) => op.ok === 'bytes',
    reason: "answers a file's bytes, which a tool's JSON answer does not carry",
  },
  {
    applies: (op) => op.multipart === true,
    reason: "a multipart upload: a tool's arguments are JSON, not a file",
  },
  {
    applies: (op) => op.path.startsWith('/api/v1/me/apikeys'),
    reason:
      "API keys are credentials a person makes and revokes: a tool would put a key in a model's context, or " +
      'let an agent revoke keys',
  },
  {
    applies: replacesWithoutVersion,
    reason:
      'replaces a whole set or updates by filter with no version to check (reorders, set-all, the bulk ' +
      "update): made from a stale read it would undo others' changes; the single-item tools do it with versions",
  },
];

/** A PUT that cannot be conditional: an array body (an order or a whole set), or a filter (`where`). */
function replacesWithoutVersion(op: Operation, components: ToolComponents): boolean {
  if (op.method !== 'PUT' || op.conditional) return false;
  if (op.where) return true;
  return op.body !== undefined && components.schemas[op.body]?.type === 'array';
}

/** Every tool, and every operation left out with its reason. */
export function generateTools(
  operations: readonly Operation[],
  components: ToolComponents,
): { tools: McpTool[]; leftOut: LeftOut[] } {
  const tools: McpTool[] = [];
  const leftOut: LeftOut[] = [];
  const names = new Set<string>();
  // The shapes with a version: those a conditional operation answers. A create or any other answer of one carries
  // its ETag too, so an agent can change what it just made without reading it first.
  const versioned = new Set(
    operations.flatMap((op) =>
      op.conditional && typeof op.ok === 'object' && 'one' in op.ok ? [op.ok.one] : [],
    ),
  );
  for (const op of operations) {
    const rule = LEAVE_OUT.find((r) => r.applies(op, components));
    if (rule) {
      leftOut.push({ operationId: op.operationId, reason: rule.reason });
      continue;
    }
    if (names.has(op.operationId)) throw new Error(`${op.operationId}: two operations have this operationId`);
    names.add(op.operationId);
    tools.push(toolFor(op, components, versioned));
  }
  return { tools, leftOut };
}

function toolFor(op: Operation, components: ToolComponents, versioned: ReadonlySet<string>): McpTool {
  const where = `tool ${op.operationId}`;
  const scope = op.scope;
  if (!scope) throw new Error(`${where}: an operation that takes an API key needs a scope`);
  if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(op.operationId))
    throw new Error(`${where}: the operationId is not a usable tool name`);
  if (op.method === 'PUT' && op.body === undefined)
    throw new Error(`${where}: a PUT needs a body schema (the declaration names none)`);
  if (op.conditional && op.method === 'POST') throw new Error(`${where}: a POST cannot be conditional`);

  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  const argument = (name: string, schema: Schema, isRequired: boolean) => {
    if (name in properties) throw new Error(`${where}: two arguments are named ${name}`);
    properties[name] = schema;
    if (isRequired) required.push(name);
  };
  const pathParameters = [...op.path.matchAll(/:(\w+)(\(text\))?/g)].map((m) => {
    const name = m[1] as string;
    const parameter = components.parameters[name];
    if (!parameter) throw new Error(`${where}: no path parameter named ${name} in the document`);
    argument(name, parameterSchema(parameter, components, where), true);
    return { name, integer: (parameter.schema as Schema | undefined)?.type === 'integer' };
  });
  const queryParameters = queryParametersOf(op, components, where).map(([name, parameter]) => {
    argument(name, parameterSchema(parameter, components, where), false);
    return name;
  });

  const sendsVersion = op.conditional === true && op.method !== 'GET';
  const answersVersion = typeof op.ok === 'object' && 'one' in op.ok && versioned.has(op.ok.one);
  const sendsIdempotencyKey = takesIdempotencyKey(op);
  if (op.body !== undefined) argument('body', namedSchema(op.body, components.schemas, where), true);
  if (sendsVersion) argument('version', VERSION_ARGUMENT, true);
  if (sendsIdempotencyKey) argument('idempotencyKey', IDEMPOTENCY_KEY_ARGUMENT, false);

  const outputSchema = outputSchemaOf(op, components, where, answersVersion);
  const definition: Tool = {
    name: op.operationId,
    title: op.summary,
    description: describe(op, scope, { sendsVersion, answersVersion, sendsIdempotencyKey }),
    inputSchema: { type: 'object', properties, required, additionalProperties: false },
    ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
    annotations: {
      title: op.summary,
      readOnlyHint: op.method === 'GET',
      destructiveHint: op.method === 'DELETE',
      // A repeated call does nothing more: reads, PUTs and DELETEs by nature, POSTs by their Idempotency-Key.
      idempotentHint: op.method !== 'POST' || sendsIdempotencyKey,
      openWorldHint: false,
    },
  };
  return {
    name: op.operationId,
    operation: op,
    scope,
    pathParameters,
    queryParameters,
    sendsVersion,
    answersVersion,
    sendsIdempotencyKey,
    definition,
  };
}

/**
 * The query parameters the document gives the operation (openapi/document.ts `operation()`): its filter, its
 * enrichments, paging, and its own query arguments. Its own header parameters (the stream's `Last-Event-ID`) are
 * not arguments: `after` says the same.
 */
function queryParametersOf(
  op: Operation,
  components: ToolComponents,
  where: string,
): Array<[string, Schema]> {
  const named = (component: string): [string, Schema] => {
    const parameter = components.parameters[component];
    if (!parameter) throw new Error(`${where}: no parameter named ${component} in the document`);
    return [parameter.name as string, parameter];
  };
  const out: Array<[string, Schema]> = [];
  if (op.where) out.push(named(`where.${op.where}`));
  if (op.with) out.push(named(`with.${op.with}`));
  if (op.paged || (typeof op.ok === 'object' && 'page' in op.ok)) out.push(named('page'), named('pageSize'));
  if (op.cursor) out.push(named('cursor'));
  for (const parameter of op.parameters ?? []) {
    if (parameter.in === 'query') out.push([parameter.name as string, parameter]);
  }
  return out;
}

/** An OpenAPI parameter as a JSON Schema property: its schema, with its description and examples. */
function parameterSchema(parameter: Schema, components: ToolComponents, where: string): Schema {
  const schema = inlineSchema((parameter.schema as Schema | undefined) ?? {}, components.schemas, where);
  const examples = Object.values(
    (parameter.examples as Record<string, { value: unknown }> | undefined) ?? {},
  );
  return {
    ...schema,
    ...(parameter.description ? { description: parameter.description } : {}),
    ...(examples.length ? { examples: examples.map((e) => e.value) } : {}),
  };
}

/**
 * The structured output: the answer's shape, which MCP needs to be an object. A conditional resource's gains
 * `version`, the number its ETag carries, for the agent to send back with a change.
 */
function outputSchemaOf(
  op: Operation,
  components: ToolComponents,
  where: string,
  answersVersion: boolean,
): Schema | undefined {
  if (typeof op.ok !== 'object') return undefined; // 'empty': a delete answers nothing
  const name = 'one' in op.ok ? op.ok.one : 'page' in op.ok ? `${op.ok.page}Page` : op.ok.stream;
  const schema = namedSchema(name, components.schemas, where);
  if (schema.type !== 'object') throw new Error(`${where}: the answer ${name} is not an object`);
  if (!answersVersion) return schema;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  if ('version' in properties) throw new Error(`${where}: ${name} already has a property named version`);
  return { ...schema, properties: { ...properties, version: VERSION_ANSWERED } };
}

const VERSION_ANSWERED: Schema = {
  type: 'integer',
  minimum: 1,
  description:
    "The resource's version as of this answer (from its ETag): send it as `version` to change or delete it.",
};

const VERSION_ARGUMENT: Schema = {
  anyOf: [
    { type: 'integer', minimum: 1 },
    { type: 'string', minLength: 1 },
  ],
  description:
    'The version you last read it at: the `version` of the get tool, or of your last change to it (its ETag is ' +
    'taken too). Sent as If-Match: if it has changed since, nothing is written and you are told to read it again.',
};

const IDEMPOTENCY_KEY_ARGUMENT: Schema = {
  type: 'string',
  pattern: IDEMPOTENCY_KEY_PATTERN,
  description:
    'Optional. Without it a key is derived from this API key, the tool and the arguments, so a retried call is ' +
    'done once. Give a new one to do the same thing again on purpose (e.g. a second, equal comment).',
};

const ACCESS_TEXT: Record<Operation['access'], string> = {
  Read: 'Needs Read access on the project.',
  ReadWrite: 'Needs ReadWrite access on the project.',
  Admin: 'Needs Admin access on the project.',
  key: 'Any API key.',
  public: '',
  operator: '',
};

/** A tool's own text where the operation's would mislead (the stream's is mostly about its SSE form). */
const OWN_DESCRIPTIONS: Readonly<Record<string, string>> = {
  streamProjectEvents:
    "The project's changes after a position, oldest first, each as its webhooks receive it (`event`: the type, " +
    "`data`: the payload). Pass `after`: the `position` of the board resource or of this tool's last answer; " +
    'continue with the `position` it answers. `wait`: seconds to wait for a change when there is none yet (MCP ' +
    'clients often give up on a call after 60 s: 30 is plenty). ' +
    'Without `after`: no change, and the position of now. A position older than the retained history is refused ' +
    '(410): read the board again.',
};

function describe(
  op: Operation,
  scope: OperationScope,
  how: { sendsVersion: boolean; answersVersion: boolean; sendsIdempotencyKey: boolean },
): string {
  const own = OWN_DESCRIPTIONS[op.operationId] ?? op.description ?? '';
  const parts = [`${op.summary}.`, own];
  if (op.method === 'PUT' && !how.sendsVersion)
    parts.push('Changes only the fields given in `body`; this resource has no version to check.');
  else if (op.method === 'PUT')
    parts.push('Changes only the fields given in `body`; the others keep their values.');
  if (how.sendsVersion)
    parts.push(
      'Requires `version`, from your latest read of it: if it changed since, nothing is written and the tool says ' +
        'to read it again.',
    );
  if (how.answersVersion) parts.push('Answers its `version`, to send back with a change.');
  if (how.sendsIdempotencyKey)
    parts.push(
      'Safe to retry: the same call (same arguments) within 24 hours is done once and answers as the first did; ' +
        'pass a new `idempotencyKey` to do it again on purpose.',
    );
  parts.push(`${ACCESS_TEXT[op.access]} Key scope: ${scopeName(scope)}.`);
  return parts.filter(Boolean).join(' ');
}
