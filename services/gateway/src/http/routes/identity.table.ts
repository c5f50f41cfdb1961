import { route, type Route } from '../router';
import { adminHandlers } from './admin.routes';
import type { RouteDeps } from './deps';
import { inviteHandlers } from './invites.routes';
import { memberHandlers } from './members.routes';
import { projectHandlers } from './projects.routes';
import { roleHandlers } from './roles.routes';
import { userHandlers } from './users.routes';
import { P, V1 } from './paths';

/** Users, keys, /me, projects, members, roles and invites (membership's side of the API). */
export function identityRoutes(deps: RouteDeps): Route[] {
  const users = userHandlers(deps);
  const projects = projectHandlers(deps);
  const invites = inviteHandlers(deps);
  const roles = roleHandlers(deps);
  const members = memberHandlers(deps);
  const admin = adminHandlers(deps);
  const role = `${P}/roles/:roleId`;
  return [
    route('POST', `${V1}/users`, { public: true }, users.signUp),
    route('GET', `${V1}/me`, {}, users.me),
    route('PUT', `${V1}/me`, {}, users.update),
    route('GET', `${V1}/me/apikeys`, {}, users.listApiKeys),
    route('POST', `${V1}/me/apikeys`, {}, users.createApiKey),
    route('DELETE', `${V1}/me/apikeys/:keyId`, {}, users.deleteApiKey),
    route('GET', `${V1}/me/account`, {}, users.account),
    // The operator token, not an API key: the handler checks it (404 when OPERATOR_TOKEN is unset).
    route('PUT', `${V1}/admin/accounts/:userId`, { public: true }, admin.updateAccount),
    route('PUT', `${V1}/admin/users/:userId`, { public: true }, admin.updateUser),
    route('PUT', `${V1}/admin/users/:userId/apikeys/:keyId`, { public: true }, admin.updateApiKey),

    route('GET', `${V1}/projects`, {}, projects.list),
    route('POST', `${V1}/projects`, {}, projects.create),
    route('GET', P, { access: 'Read' }, projects.get),
    route('PUT', P, { access: 'Admin' }, projects.update),
    // Owner only; the handler refuses other admins with 403 (docs/compat.md §6).
    route('DELETE', P, { access: 'Admin' }, projects.delete),

    route('GET', `${P}/members`, { access: 'Read' }, members.list),
    route('POST', `${P}/members`, { access: 'Admin' }, members.add),
    route('GET', `${P}/members/:user(text)`, { access: 'Read' }, members.get),
    route('DELETE', `${P}/members/:user(text)`, { access: 'Admin' }, members.remove),

    route('GET', `${P}/roles`, { access: 'Read' }, roles.list),
    route('POST', `${P}/roles`, { access: 'Admin' }, roles.create),
    route('GET', role, { access: 'Read' }, roles.get),
    route('PUT', role, { access: 'Admin' }, roles.update),
    route('DELETE', role, { access: 'Admin' }, roles.delete),
    route('GET', `${role}/members`, { access: 'Read' }, roles.listMembers),
    route('POST', `${role}/members`, { access: 'Admin' }, roles.addMember),
    route('PUT', `${role}/members`, { access: 'Admin' }, roles.setMembers),
    route('DELETE', `${role}/members/:user(text)`, { access: 'Admin' }, roles.removeMember),

    route('GET', `${P}/invites`, { access: 'Admin' }, invites.list),
    route('POST', `${P}/invites`, { access: 'Admin' }, invites.create),
    route('GET', `${P}/invites/:inviteId`, { access: 'Admin' }, invites.get),
    route('DELETE', `${P}/invites/:inviteId`, { access: 'Admin' }, invites.delete),
    route('POST', `${V1}/invites/:token(text)/accept`, {}, invites.accept),
  ];
}
