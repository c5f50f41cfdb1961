import { createHash } from 'node:crypto';
import type { ApiRequest } from './api-transport';
import type { McpTool } from './tools';

/**
 * A tool call as the API request it makes. The safety is here, by construction: a conditional write always carries
 * `If-Match` (its `version` is required), and every route that takes an Idempotency-Key always gets one, the
 * agent's or one derived from the call itself, so a retried call is answered once rather than done twice.
 */
export type Arguments = Readonly<Record<string, unknown>>;

/** An argument the tool cannot send: the agent is told what is wrong, nothing is called. */
export class ArgumentError extends Error {}

/**
 * `caller`: who makes the call, for the derived Idempotency-Key (the API keeps keys per user; this keeps two agents
 * of one user, each with its own key, from being answered each other's creates).
 */
export function toolRequest(tool: McpTool, args: Arguments, caller: string): ApiRequest {
  const headers: Record<string, string> = {};
  if (tool.sendsVersion) headers['if-match'] = ifMatch(args.version);
  if (tool.sendsIdempotencyKey) {
    headers['idempotency-key'] =
      typeof args.idempotencyKey === 'string'
        ? args.idempotencyKey
        : derivedIdempotencyKey(caller, tool, args);
  }
  const body = tool.operation.body !== undefined ? (args.body ?? {}) : undefined;
  return {
    method: tool.operation.method,
    path: pathOf(tool, args) + queryOf(tool, args),
    headers,
    ...(body !== undefined ? { body } : {}),
  };
}

function pathOf(tool: McpTool, args: Arguments): string {
  const parameters = new Map(tool.pathParameters.map((p) => [p.name, p]));
  return tool.operation.path.replace(/:(\w+)(\(text\))?/g, (_match, name: string) => {
    const value = args[name];
    const integer = parameters.get(name)?.integer;
    if (integer) {
      const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
        throw new ArgumentError(`'${name}' must be a non-negative integer (an id).`);
      return String(n);
    }
    if ((typeof value !== 'string' || value === '') && typeof value !== 'number')
      throw new ArgumentError(`'${name}' is required.`);
    return encodeURIComponent(String(value));
  });
}

function queryOf(tool: McpTool, args: Arguments): string {
  const query = new URLSearchParams();
  for (const name of tool.queryParameters) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    query.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** Our ETags are `"v<version>-<digest>"`, and If-Match compares the version alone: any digest names it. */
const ETAG = /^(W\/)?"?v(\d{1,15})-[0-9a-f]+"?$/;

/** `version` (a number, `"7"`, `v7`, or an ETag) as the If-Match field. */
export function ifMatch(version: unknown): string {
  const n =
    typeof version === 'number'
      ? version
      : typeof version === 'string'
        ? Number(/^v?(\d{1,15})$/.exec(version.trim())?.[1] ?? ETAG.exec(version.trim())?.[2] ?? NaN)
        : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new ArgumentError(
      "'version' is required: the `version` the get tool answered (or your last change answered), e.g. 3.",
    );
  }
  return `"v${n}-0"`;
}

/**
 * The same call (caller, tool, arguments: JSON with sorted keys, so their order does not matter) → the same key,
 * 64 hex digits behind a prefix that says where it came from.
 */
export function derivedIdempotencyKey(caller: string, tool: McpTool, args: Arguments): string {
  const { idempotencyKey: _ignored, ...rest } = args;
  const digest = createHash('sha256')
    .update([caller, tool.name, canonicalJson(rest)].join('\n'))
    .digest('hex');
  return `mcp-${digest}`;
}

/** JSON with every object's keys sorted. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
