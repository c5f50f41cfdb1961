import { route, type Route } from '../router';
import type { RouteDeps } from './deps';
import { storyHandlers } from './stories.routes';
import { P, S } from './paths';

/** Stories, phases, tags, tasks and comments (boards' side of the API). */
export function boardRoutes(deps: RouteDeps): Route[] {
  const stories = storyHandlers(deps);
  return [
    route('GET', `${P}/stories`, { access: 'Read' }, stories.list),
    route('POST', `${P}/stories`, { access: 'ReadWrite' }, stories.create),
    route('GET', S, { access: 'Read' }, stories.get),
    route('PUT', S, { access: 'ReadWrite' }, stories.update),
    route('DELETE', S, { access: 'ReadWrite' }, stories.remove),
  ];
}
