import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import {
  newRequestId,
  otelContext,
  runWithContext,
  type Logger,
  type RequestContext,
} from '@flowboard/service-kit';
import type { HttpObservation } from './observe';
import { describeRequest } from './record';
import type { Router } from '../api/router';

/** An incoming X-Request-Id is kept when it is a sane token; anything else gets a fresh id. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

const QUIET_PATHS = new Set(['/livez', '/readyz']);

/**
 * First middleware: the request id (echoed as X-Request-Id on every response), the request's record (path, query,
 * format, route: record.ts), the AsyncLocalStorage context every log line and gRPC call of the request reads,
 * and one access-log line when the response is done:
 * method, route pattern, status, duration; never bodies, query strings or credentials. `observe` adds the
 * request's span (the rest of the chain runs in its trace context) and its metrics.
 */
export function requestContext(
  logger: Logger,
  router: Router,
  observe?: (req: IncomingMessage) => HttpObservation,
): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const requestId =
      typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : newRequestId();
    const context: RequestContext = { requestId, changes: [] };
    const record = describeRequest(req, context, router);
    res.setHeader('X-Request-Id', requestId);
    const observation = observe?.(req);

    res.once('close', () => {
      const match = record.match;
      const line = {
        method: req.method,
        route: match.kind === 'found' ? match.route.pattern : null,
        status: res.statusCode,
        ms: Math.round((performance.now() - record.startedAt) * 10) / 10,
        ...(res.writableFinished ? {} : { aborted: true }),
      };
      runWithContext(context, () => {
        if (QUIET_PATHS.has(record.target.path)) logger.debug(line, 'request');
        else logger.info(line, 'request');
      });
      observation?.finish(record, res.statusCode);
    });

    if (observation) otelContext.with(observation.context, () => runWithContext(context, () => next()));
    else runWithContext(context, () => next());
  };
}
