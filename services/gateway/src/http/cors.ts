import type { RequestHandler } from 'express';

const ALLOW_HEADERS = 'X-Zen-ApiKey, Authorization, Content-Type, Accept';
const EXPOSE_HEADERS =
  'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy';
const ALLOW_METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS';

/**
 * CORS as the original offered it (api-compat §1.1): any origin, the API's headers; every OPTIONS request is a
 * preflight answered 200 with an empty body, before authentication.
 */
export function cors(): RequestHandler {
  return (req, res, next) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    if (req.method !== 'OPTIONS') return next();
    res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    res.setHeader('Allow', ALLOW_METHODS);
    res.status(200).setHeader('Content-Length', 0);
    res.end();
  };
}
