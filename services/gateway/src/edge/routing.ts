import { DomainError } from '@flowboard/service-kit';
import { HttpProblem } from '../wire/problem';
import type { RouteMatch } from '../api/router';

export type FoundRoute = Extract<RouteMatch, { kind: 'found' }>;

/** The route, once the caller is known (401 comes before 404/405): unknown → 404; known path, wrong method → 405. */
export function requireRoute(method: string, match: RouteMatch): FoundRoute {
  if (match.kind === 'not-found') throw new DomainError('NotFound', 'No such resource.');
  if (match.kind === 'method-not-allowed') {
    throw new HttpProblem('MethodNotAllowed', `${method} is not allowed here.`, {
      Allow: match.allow.join(', '),
    });
  }
  return match;
}
