import type { Route } from '../router';
import { boardRoutes } from './board.table';
import type { RouteDeps } from './deps';
import { fileRoutes } from './file.table';
import { identityRoutes } from './identity.table';

/**
 * THE route table: method, path and the access each route needs (the spec's Access column), one area per
 * file. Authentication, 404/405, the access check and the response format all come from here, so a route
 * is one line.
 */
export function routeTable(deps: RouteDeps): Route[] {
  return [...identityRoutes(deps), ...boardRoutes(deps), ...fileRoutes(deps)];
}
