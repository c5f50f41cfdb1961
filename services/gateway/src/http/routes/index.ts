import { route, type Route } from '../router';
import { attachmentHandlers } from './attachments.routes';
import type { RouteDeps } from './deps';
import { inviteHandlers } from './invites.routes';
import { projectHandlers } from './projects.routes';
import { storyHandlers } from './stories.routes';
import { userHandlers } from './users.routes';

const V1 = '/api/v1';
const P = `${V1}/projects/:projectId`;
const S = `${P}/stories/:storyId`;

/**
 * THE route table: method, path and the access each route needs (the spec's Access column). Authentication,
 * 404/405, the access check and the response format all come from here, so a route is one line.
 */
export function routeTable(deps: RouteDeps): Route[] {
  const users = userHandlers(deps);
  const projects = projectHandlers(deps);
  const stories = storyHandlers(deps);
  const invites = inviteHandlers(deps);
  const attachments = attachmentHandlers(deps);

  return [
    route('POST', `${V1}/users`, { public: true }, users.signUp),
    route('GET', `${V1}/me`, {}, users.me),

    route('POST', `${V1}/projects`, {}, projects.create),
    route('GET', P, { access: 'Read' }, projects.get),

    route('POST', `${P}/stories`, { access: 'ReadWrite' }, stories.create),
    route('GET', S, { access: 'Read' }, stories.get),

    route('POST', `${S}/attachments`, { access: 'ReadWrite' }, attachments.upload),
    route('GET', `${S}/attachments/:attachmentId/content`, { access: 'Read' }, attachments.download),

    route('POST', `${P}/invites`, { access: 'Admin' }, invites.create),
  ];
}
