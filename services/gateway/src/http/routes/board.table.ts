import { route, type Route } from '../router';
import type { RouteDeps } from './deps';
import { phaseHandlers } from './phases.routes';
import { storyHandlers } from './stories.routes';
import { taskHandlers } from './tasks.routes';
import { commentHandlers } from './comments.routes';
import { P, S } from './paths';

/** Stories, phases, tags, tasks and comments (boards' side of the API). */
export function boardRoutes(deps: RouteDeps): Route[] {
  const stories = storyHandlers(deps);
  const phases = phaseHandlers(deps);
  const tasks = taskHandlers(deps);
  const comments = commentHandlers(deps);
  const PH = `${P}/phases/:phaseId`;
  const T = `${S}/tasks/:taskId`;
  const C = `${S}/comments/:commentId`;
  return [
    route('GET', `${P}/stories`, { access: 'Read' }, stories.list),
    route('POST', `${P}/stories`, { access: 'ReadWrite' }, stories.create),
    route('PUT', `${P}/stories`, { access: 'ReadWrite' }, stories.updateMany),
    route('GET', S, { access: 'Read' }, stories.get),
    route('PUT', S, { access: 'ReadWrite' }, stories.update),
    route('DELETE', S, { access: 'ReadWrite' }, stories.remove),
    route('GET', `${P}/phases`, { access: 'Read' }, phases.list),
    route('POST', `${P}/phases`, { access: 'Admin' }, phases.create),
    route('PUT', `${P}/phases`, { access: 'Admin' }, phases.reorder),
    route('GET', PH, { access: 'Read' }, phases.get),
    route('PUT', PH, { access: 'Admin' }, phases.update),
    route('DELETE', PH, { access: 'Admin' }, phases.remove),
    route('GET', `${PH}/stories`, { access: 'Read' }, phases.listStories),
    route('PUT', `${PH}/stories`, { access: 'ReadWrite' }, phases.reorderStories),
    route('GET', `${S}/tasks`, { access: 'Read' }, tasks.list),
    route('POST', `${S}/tasks`, { access: 'ReadWrite' }, tasks.create),
    route('PUT', `${S}/tasks`, { access: 'ReadWrite' }, tasks.reorder),
    route('GET', T, { access: 'Read' }, tasks.get),
    route('PUT', T, { access: 'ReadWrite' }, tasks.update),
    route('DELETE', T, { access: 'ReadWrite' }, tasks.remove),
    route('GET', `${S}/comments`, { access: 'Read' }, comments.list),
    route('POST', `${S}/comments`, { access: 'ReadWrite' }, comments.create),
    route('GET', C, { access: 'Read' }, comments.get),
    route('PUT', C, { access: 'ReadWrite' }, comments.update),
    route('DELETE', C, { access: 'ReadWrite' }, comments.remove),
  ];
}
