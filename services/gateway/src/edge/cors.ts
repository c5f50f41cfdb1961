import type { Request, RequestHandler, Response } from 'express';
import type { RouteMatch } from '../api/router';

const ALLOW_HEADERS = 'X-Zen-ApiKey, Authorization, Content-Type, Accept';
const EXPOSE_HEADERS =
  'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Flowboard-Changes';

/** CORS as the original offered it (docs/compat.md §1.1): any origin may call and read the API's headers. */
export function cors(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    next();
  };
}

/**
 * OPTIONS on a path of the API (a CORS preflight, or a client asking what it may do) is answered 200 with an empty
 * body before authentication; `Allow` and `Access-Control-Allow-Methods` list exactly the methods of that path (the
 * route table's, as on a 405). OPTIONS on a path that is not the API's goes on like any request to one (401/404).
 * True when it answered.
 */
export function answerPreflight(req: Request, res: Response, match: RouteMatch): boolean {
  if (req.method !== 'OPTIONS' || match.kind !== 'method-not-allowed') return false;
  const methods = match.allow.join(', ');
  res.setHeader('Access-Control-Allow-Methods', methods);
  res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  res.setHeader('Allow', methods);
  res.status(200).setHeader('Content-Length', 0);
  res.end();
  return true;
}
