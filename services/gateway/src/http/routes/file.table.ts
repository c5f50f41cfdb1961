import { route, type Route } from '../router';
import { attachmentHandlers } from './attachments.routes';
import type { RouteDeps } from './deps';
import { S } from './paths';

/** Attachments (the files service's side of the API). */
export function fileRoutes(deps: RouteDeps): Route[] {
  const attachments = attachmentHandlers(deps);
  return [
    route('GET', `${S}/attachments`, { access: 'Read' }, attachments.list),
    route('POST', `${S}/attachments`, { access: 'ReadWrite' }, attachments.upload),
    route('GET', `${S}/attachments/:attachmentId`, { access: 'Read' }, attachments.get),
    route('PUT', `${S}/attachments/:attachmentId`, { access: 'ReadWrite' }, attachments.rename),
    route('DELETE', `${S}/attachments/:attachmentId`, { access: 'ReadWrite' }, attachments.remove),
    route('GET', `${S}/attachments/:attachmentId/content`, { access: 'Read' }, attachments.download),
  ];
}
