import type { RequestHandler } from 'express';
import { DomainError } from '@flowboard/service-kit';
import { HttpProblem } from './problem';
import type { Router } from './router';
import { stateOf } from './state';

/** Finds the route; the outcome is acted on after authentication (401 comes before 404/405). */
export function matchRoute(router: Router): RequestHandler {
  return (req, _res, next) => {
    const state = stateOf(req);
    state.match = router.match(req.method, state.target.segments);
    next();
  };
}

/** Unknown route → 404; known path, wrong method → 405 with `Allow`. */
export function rejectUnrouted(): RequestHandler {
  return (req, _res, next) => {
    const match = stateOf(req).match;
    if (match?.kind === 'not-found' || !match) throw new DomainError('NotFound', 'No such resource.');
    if (match.kind === 'method-not-allowed') {
      throw new HttpProblem('MethodNotAllowed', `${req.method} is not allowed here.`, {
        Allow: match.allow.join(', '),
      });
    }
    next();
  };
}
