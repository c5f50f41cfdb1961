import { route, type Route } from '../router';
import type { RouteDeps } from './deps';
import { phaseHandlers } from './phases.routes';
import { servableFromCache, storyHandlers } from './stories.routes';
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
  // Reads of the board: answered from the response cache while the board's version holds (router.ts).
  const read = { access: 'Read', cached: servableFromCache } as const;
  return [
    route('GET', `${P}/stories`, read, stories.list),
    route('POST', `${P}/stories`, { access: 'ReadWrite' }, stories.create),
    route('PUT', `${P}/stories`, { access: 'ReadWrite' }, stories.updateMany),
    route('GET', S, read, stories.get),
    route('PUT', S, { access: 'ReadWrite' }, stories.update),
    route('DELETE', S, { access: 'ReadWrite' }, stories.remove),
    route('GET', `${P}/phases`, read, phases.list),
    route('POST', `${P}/phases`, { access: 'Admin' }, phases.create),
    route('PUT', `${P}/phases`, { access: 'Admin' }, phases.reorder),
    route('GET', PH, read, phases.get),
    route('PUT', PH, { access: 'Admin' }, phases.update),
    route('DELETE', PH, { access: 'Admin' }, phases.remove),
    route('GET', `${PH}/stories`, read, phases.listStories),
    route('PUT', `${PH}/stories`, { access: 'ReadWrite' }, phases.reorderStories),
    route('GET', `${S}/tasks`, read, tasks.list),
    route('POST', `${S}/tasks`, { access: 'ReadWrite' }, tasks.create),
    route('PUT', `${S}/tasks`, { access: 'ReadWrite' }, tasks.reorder),
    route('GET', T, read, tasks.get),
    route('PUT', T, { access: 'ReadWrite' }, tasks.update),
    route('DELETE', T, { access: 'ReadWrite' }, tasks.remove),
    route('GET', `${S}/comments`, read, comments.list),
    route('POST', `${S}/comments`, { access: 'ReadWrite' }, comments.create),
    route('GET', C, read, comments.get),
    route('PUT', C, { access: 'ReadWrite' }, comments.update),
    route('DELETE', C, { access: 'ReadWrite' }, comments.remove),
    // Tags: `{tag}` is an id or a URL-encoded name (docs/compat.md §5.5); story-scoped ones under S/tags.
    route('GET', `${P}/tags`, read, tags.list),
    route('POST', `${P}/tags`, { access: 'ReadWrite' }, tags.create),
    route('GET', `${P}/tags/:tag(text)`, read, tags.get),
    route('PUT', `${P}/tags/:tag(text)`, { access: 'ReadWrite' }, tags.update),
    route('DELETE', `${P}/tags/:tag(text)`, { access: 'ReadWrite' }, tags.remove),
    route('GET', `${P}/tags/:tag(text)/stories`, read, tags.listStories),
    route('POST', `${P}/tags/:tag(text)/stories`, { access: 'ReadWrite' }, tags.addStory),
    route('PUT', `${P}/tags/:tag(text)/stories`, { access: 'ReadWrite' }, tags.setStories),
    route('DELETE', `${P}/tags/:tag(text)/stories/:storyId`, { access: 'ReadWrite' }, tags.removeStory),
    route('GET', `${S}/tags`, read, tags.listForStory),
    route('POST', `${S}/tags`, { access: 'ReadWrite' }, tags.addToStory),
    route('PUT', `${S}/tags`, { access: 'ReadWrite' }, tags.setOnStory),
    route('DELETE', `${S}/tags/:tag(text)`, { access: 'ReadWrite' }, tags.removeFromStory),
    // The caller's stories across the projects they may read (no project in the path: no access check here).
    route('GET', `${V1}/me/stories`, {}, meStories.list),
  ];
}
