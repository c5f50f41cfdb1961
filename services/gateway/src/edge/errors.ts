import type { ErrorRequestHandler } from 'express';
import { ERROR_TABLE, type Logger } from '@flowboard/service-kit';
import { asDomainError, renderProblem } from '../wire/problem';
import { recordOf } from './record';

/**
 * The one error middleware: every thrown or rejected error becomes a problem body in the negotiated format via
 * service-kit's table. 5xx are logged (with the cause); client errors are not, beyond the access log.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const error = asDomainError(err);
    const status = ERROR_TABLE[error.kind].http;
    if (error.kind === 'Internal') logger.error({ err: error.cause ?? err }, error.message);
    // A dependency being down is operational, not a bug: one line without a stack.
    else if (status >= 500)
      logger.warn({ kind: error.kind, cause: causeSummary(error.cause) }, error.message);
    if (res.headersSent) {
      // A stream broke after its headers went out; all we can do is cut the response short.
      res.destroy();
      return;
    }
    const record = recordOf(req);
    const problem = renderProblem(error, record.context.requestId, record.format);
    res.status(problem.status);
    for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
    res.setHeader('Content-Length', Buffer.byteLength(problem.body));
    res.end(problem.body);
  };
}

const causeSummary = (cause: unknown): string | undefined =>
  cause instanceof Error ? cause.message : undefined;
