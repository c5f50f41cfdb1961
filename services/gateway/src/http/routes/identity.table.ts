import { route, type Route } from '../router';
import type { RouteDeps } from './deps';
import { inviteHandlers } from './invites.routes';
import { projectHandlers } from './projects.routes';
import { userHandlers } from './users.routes';
import { P, V1 } from './paths';

/** Users, keys, /me, projects, members, roles and invites (membership's side of the API). */
export function identityRoutes(deps: RouteDeps): Route[] {
  const users = userHandlers(deps);
  const projects = projectHandlers(deps);
  const invites = inviteHandlers(deps);
  return [
    route('POST', `${V1}/users`, { public: true }, users.signUp),
    route('GET', `${V1}/me`, {}, users.me),

    route('POST', `${V1}/projects`, {}, projects.create),
    route('GET', P, { access: 'Read' }, projects.get),

    route('POST', `${P}/invites`, { access: 'Admin' }, invites.create),
  ];
}
