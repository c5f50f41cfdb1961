import { route, type Route } from '../router';
import { attachmentHandlers } from './attachments.routes';
import type { RouteDeps } from './deps';
import { S } from './paths';

/** Attachments (the files service's side of the API). */
export function fileRoutes(deps: RouteDeps): Route[] {
  const attachments = attachmentHandlers(deps);
  return [
    route('POST', `${S}/attachments`, { access: 'ReadWrite' }, attachments.upload),
    route('GET', `${S}/attachments/:attachmentId/content`, { access: 'Read' }, attachments.download),
  ];
}
