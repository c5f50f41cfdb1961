import type { IncomingMessage } from 'node:http';
import type { RequestContext } from '@flowboard/service-kit';
import { responseFormat, type Format } from '../wire/negotiate';
import { normalizeTarget, type NormalizedTarget } from '../wire/normalize-path';
import { Query } from '../wire/query';
import type { Router, RouteMatch } from '../api/router';

/**
 * The facts of one request, worked out once when it arrives and never changed after: its id and logging context,
 * its normalised path and query, the response format, and the route it matched. The steps around the API pipeline
 * read them (health and docs the path, compression and the access log the route, the error renderer the format);
 * the pipeline itself passes what it learns (caller, limits, access) from step to step as typed values instead
 * (pipeline.ts).
 */
export interface RequestRecord {
  /** The AsyncLocalStorage context of the request's logs and gRPC calls; authentication adds the caller's id. */
  readonly context: RequestContext;
  readonly startedAt: number;
  readonly target: NormalizedTarget;
  readonly query: Query;
  /** Every answer, errors included, is in this format (docs/compat.md §1.2). */
  readonly format: Format;
  readonly match: RouteMatch;
}

const records = new WeakMap<IncomingMessage, RequestRecord>();

/** Path normalisation (slashes, `.json`/`.xml`), case-insensitive query names, format negotiation, routing. */
export function describeRequest(
  req: IncomingMessage,
  context: RequestContext,
  router: Router,
): RequestRecord {
  const target = normalizeTarget(req.url ?? '/');
  const record: RequestRecord = {
    context,
    startedAt: performance.now(),
    target,
    query: new Query(target.search),
    format: responseFormat({
      suffix: target.suffix,
      accept: req.headers.accept,
      contentType: req.headers['content-type'],
    }),
    match: router.match(req.method ?? 'GET', target.segments),
  };
  records.set(req, record);
  return record;
}

export function recordOf(req: IncomingMessage): RequestRecord {
  const record = records.get(req);
  if (!record) throw new Error('request record missing: requestContext() must run first');
  return record;
}
