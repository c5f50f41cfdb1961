import { DomainError } from '@flowboard/service-kit';
import type { Call } from '../call';
import { get, resourceOperations } from '../operation';
import type { Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import {
  changeStream,
  type ChangeStream,
  DEFAULT_LIMIT,
  HISTORY_WAIT_MS,
  MAX_LIMIT,
  MAX_WAIT_SECONDS,
  SSE_RETRY_MS,
  STREAM_CAP_RETRY_AFTER_SECONDS,
} from './event-stream';
import { P } from './paths';

/**
 * `P/events` (a flowboard addition): a project's change stream, as server-sent events or by long-polling
 * (event-stream.ts). Read access, as the board itself. Without a hub (a gateway whose feed is not configured) it
 * answers 503.
 */
export function eventHandlers(deps: RouteDeps) {
  // Made at the first request, like every handler's use of its dependencies: listing the routes uses none.
  let stream: ChangeStream | undefined;
  return {
    async events(call: Call): Promise<Reply> {
      if (!deps.stream) {
        throw new DomainError('Unavailable', "This server does not serve projects' change streams.");
      }
      stream ??= changeStream(deps.stream, { apiKeys: deps.apiKeys, access: deps.access });
      return stream.serve(call);
    },
  };
}

const POSITION_SCHEMA = {
  type: 'string',
  maxLength: 32,
  pattern: '^1-(0|[1-9a-z][0-9a-z]*)-(0|[1-9a-z][0-9a-z]*)$',
};

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const eventOperations = resourceOperations('Change stream', 'stories', eventHandlers, [
  get(`${P}/events`, 'streamProjectEvents', "Stream a project's changes", {
    access: 'Read',
    ok: { stream: 'EventBatch' },
    addition: true,
    errors: [410],
    parameters: [
      {
        name: 'after',
        in: 'query',
        description:
          "Start after this position: an event's `id`, or a long-poll answer's `position`. Malformed, or of " +
          'another project → 400; older than the retained history → 410.',
        schema: POSITION_SCHEMA,
      },
      {
        name: 'from',
        in: 'query',
        description: 'Only `now` (the default without `after` or `Last-Event-ID`): the changes from now on.',
        schema: { type: 'string', enum: ['now'] },
      },
      {
        name: 'Last-Event-ID',
        in: 'header',
        description:
          'As `after`, and before it: an EventSource sends it by itself when it reconnects (the last `id:` it got).',
        schema: POSITION_SCHEMA,
      },
      {
        name: 'limit',
        in: 'query',
        description: `Long-poll: at most this many changes (default ${DEFAULT_LIMIT}). Out of range → 400.`,
        schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
      },
      {
        name: 'wait',
        in: 'query',
        description:
          'Long-poll: when there is no change yet, wait up to this many seconds for one (default 0: answer at ' +
          'once). Out of range → 400.',
        schema: { type: 'integer', minimum: 0, maximum: MAX_WAIT_SECONDS, default: 0 },
      },
    ],
    description:
      "The project's changes as they happen, each as its webhooks receive it (`event`: the type, `data`: the " +
      'payload), with its position. Two forms. **Server-sent events** when `Accept` names `text/event-stream` ' +
      `(EventSource: pass the key as \`apikey\`): first \`retry: ${SSE_RETRY_MS}\` and the start position's ` +
      '`id:`, then for each change `event: <type>`, `id: <position>`, `data: <payload>`, and a `: keep-alive` ' +
      'comment when nothing happens for a while. The server may end a stream: `event: closed` (`data`: ' +
      '`{"reason": "slow" | "shutdown" | "error", "position"}`; reconnect, EventSource does by itself, with ' +
      '`Last-Event-ID`), `event: gone` (a problem: the history is no longer retained; read the board again and ' +
      'stream from now) or `event: revoked` (a problem: the key or the access is gone). **Long-poll** otherwise ' +
      '(JSON or XML): the changes after the position, at most `limit`, waiting up to `wait` seconds when there is ' +
      'none yet; continue with `after=<position>` of the answer. A position older than what the server keeps in ' +
      `memory is read from the log first (the answer may take up to ${HISTORY_WAIT_MS / 1000} s even with ` +
      '`wait=0`). Changes come in order, each once, with no gap when resuming from a position. Open streams (and ' +
      `waiting long-polls) are limited per API key and server: beyond the limit 429 with \`Retry-After: ` +
      `${STREAM_CAP_RETRY_AFTER_SECONDS}\`. 503 with \`Retry-After\` while the server is not ready to stream the ` +
      "project. The caller's access is checked again every few seconds while a stream is open.",
    handler: 'events',
  }),
]);
