import { route, type Route } from '../router';
import type { RouteDeps } from './deps';
import { phaseHandlers } from './phases.routes';
import { storyHandlers } from './stories.routes';
import { taskHandlers } from './tasks.routes';
import { commentHandlers } from './comments.routes';
import { tagHandlers } from './tags.routes';
import { meStoryHandlers } from './me-stories.routes';
import { P, S, V1 } from './paths';

/** Stories, phases, tags, tasks and comments (boards' side of the API). */
export function boardRoutes(deps: RouteDeps): Route[] {
  const stories = storyHandlers(deps);
  const phases = phaseHandlers(deps);
  const tasks = taskHandlers(deps);
  const comments = commentHandlers(deps);
  const tags = tagHandlers(deps);
  const meStories = meStoryHandlers(deps);
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
    // Tags: `{tag}` is an id or a URL-encoded name (api-compat §5.5); story-scoped ones under S/tags.
    route('GET', `${P}/tags`, { access: 'Read' }, tags.list),
    route('POST', `${P}/tags`, { access: 'ReadWrite' }, tags.create),
    route('GET', `${P}/tags/:tag(text)`, { access: 'Read' }, tags.get),
    route('PUT', `${P}/tags/:tag(text)`, { access: 'ReadWrite' }, tags.update),
    route('DELETE', `${P}/tags/:tag(text)`, { access: 'ReadWrite' }, tags.remove),
    route('GET', `${P}/tags/:tag(text)/stories`, { access: 'Read' }, tags.listStories),
    route('POST', `${P}/tags/:tag(text)/stories`, { access: 'ReadWrite' }, tags.addStory),
    route('PUT', `${P}/tags/:tag(text)/stories`, { access: 'ReadWrite' }, tags.setStories),
    route('DELETE', `${P}/tags/:tag(text)/stories/:storyId`, { access: 'ReadWrite' }, tags.removeStory),
    route('GET', `${S}/tags`, { access: 'Read' }, tags.listForStory),
    route('POST', `${S}/tags`, { access: 'ReadWrite' }, tags.addToStory),
    route('PUT', `${S}/tags`, { access: 'ReadWrite' }, tags.setOnStory),
    route('DELETE', `${S}/tags/:tag(text)`, { access: 'ReadWrite' }, tags.removeFromStory),
    // The caller's stories across the projects they may read (no project in the path: no access check here).
    route('GET', `${V1}/me/stories`, {}, meStories.list),
  ];
}
