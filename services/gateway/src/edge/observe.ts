import type { IncomingMessage } from 'node:http';
import {
  contextWithSpan,
  extractTraceContext,
  requestInstruments,
  SpanKind,
  SpanStatusCode,
  tracer,
  type Context,
  type MetricsRegistry,
} from '@flowboard/service-kit';
import { BOARD_PATH } from './board-page';
import { DOCS_PATH, OPENAPI_PATH } from './docs';
import { MCP_PATH } from '../mcp/endpoint';
import type { RequestRecord } from './record';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The `route` label and span name of a request: the route table's pattern (`/api/v1/projects/:projectId`), never
 * the raw path, so ids cannot multiply series; the few paths outside the table by name; anything else
 * `unmatched`.
 */
export function routeLabel(record: Pick<RequestRecord, 'match' | 'target'>): string {
  if (record.match.kind === 'found') return record.match.route.pattern;
  const path = record.target.path;
  if (path === '/livez' || path === '/readyz') return path;
  if (path === DOCS_PATH || path.startsWith(`${DOCS_PATH}/`)) return DOCS_PATH;
  if (path === BOARD_PATH || path.startsWith(`${BOARD_PATH}/`)) return BOARD_PATH;
  if (path === MCP_PATH || path === `${MCP_PATH}/`) return MCP_PATH;
  if (`${path}.json` === OPENAPI_PATH) return OPENAPI_PATH;
  return 'unmatched';
}

/** Unknown methods are one label value, not one each. */
export const methodLabel = (method: string | undefined): string =>
  method && METHODS.has(method) ? method : 'other';

export interface HttpObservation {
  /** The request's trace context (caller's `traceparent` → our server span), to run the chain in. */
  context: Context;
  finish(record: Pick<RequestRecord, 'match' | 'target'>, status: number): void;
}

/**
 * A server span per request, child of the caller's W3C trace context, and `flowboard_http_requests_total` /
 * `flowboard_http_request_duration_seconds` by method, route and status. No URL, query or header goes into
 * either (query strings may hold an API key).
 */
export function httpObserver(registry: MetricsRegistry | undefined) {
  const instruments = registry
    ? requestInstruments(
        registry,
        {
          total: 'flowboard_http_requests_total',
          seconds: 'flowboard_http_request_duration_seconds',
          what: 'HTTP requests served',
        },
        ['method', 'route', 'status'],
      )
    : undefined;
  return (req: IncomingMessage): HttpObservation => {
    const method = methodLabel(req.method);
    const parent = extractTraceContext(req.headers);
    const span = tracer().startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
      parent,
    );
    const started = performance.now();
    return {
      context: contextWithSpan(span, parent),
      finish(record, status) {
        const route = routeLabel(record);
        instruments?.observe({ method, route, status: String(status) }, (performance.now() - started) / 1000);
        span.updateName(`${method} ${route}`);
        span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  };
}
