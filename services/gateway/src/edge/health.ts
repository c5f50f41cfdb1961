import type { RequestHandler } from 'express';
import type { Readiness } from '../readiness';
import { recordOf } from './record';

/** `/livez` (always 200: the process answers) and `/readyz` (started and not draining; readiness.ts), outside the API. */
export function health(readiness: Readiness): RequestHandler {
  return async (req, res, next) => {
    const path = recordOf(req).target.path;
    if (path !== '/livez' && path !== '/readyz') return next();
    const ok = path === '/livez' || (await readiness.isReady());
    const body = JSON.stringify({ status: ok ? 'ok' : 'unavailable' });
    res.status(ok ? 200 : 503);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  };
}
