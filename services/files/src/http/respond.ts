import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  CHANGES_HEADER,
  changesHeaderValue,
  currentContext,
  ERROR_TABLE,
  isDomainError,
  unavailableIfUnreachable,
  type Logger,
} from '@flowboard/service-kit';

const JSON_TYPE = 'application/json; charset=utf-8';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  const changes = changesHeaderValue(currentContext());
  res.writeHead(status, {
    ...headers,
    ...(changes === undefined ? {} : { [CHANGES_HEADER]: changes }),
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/**
 * Errors as `{kind, problem, message}` with the HTTP status of service-kit's one error table; the database or the
 * object store out of reach is a 503, as on the gRPC side. Unknown errors are logged and answered with a generic
 * 500. After the headers went out, the connection is cut instead.
 */
export function sendError(
  req: IncomingMessage,
  res: ServerResponse,
  thrown: unknown,
  logger: Logger,
  headers: Record<string, string> = {},
): void {
  const error = unavailableIfUnreachable(thrown);
  const known = isDomainError(error) && error.kind !== 'Internal' ? error : undefined;
  if (!known) logger.error({ err: error }, 'unexpected error in HTTP handler');
  else if (known.kind === 'Unavailable') logger.warn({ err: error }, known.message);

  if (res.headersSent) {
    res.destroy();
    return;
  }
  const kind = known?.kind ?? 'Internal';
  const row = ERROR_TABLE[kind];
  sendJson(
    res,
    row.http,
    { kind, problem: known?.problem ?? row.slug, message: known?.message ?? 'Internal error' },
    headers,
  );
  // Whatever of the body nobody read is discarded, so the connection stays usable.
  if (!req.complete) req.resume();
}
