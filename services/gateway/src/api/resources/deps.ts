import type { Logger } from '@flowboard/service-kit';
import type { ApiKeyAuthenticator } from '../../authz/api-keys';
import type { ProjectAccessResolver } from '../../authz/project-access';
import type { BoardsClient } from '../../clients/boards.client';
import type { FilesClient } from '../../clients/files.client';
import type { FilesProxy } from '../../clients/files-proxy';
import type { MembershipClient } from '../../clients/membership.client';
import type { WebhooksClient } from '../../clients/webhooks.client';
import type { UserDirectory } from '../../cache';

/** What route handlers are built from: the upstream clients, created once at boot. */
export interface RouteDeps {
  membership: MembershipClient;
  boards: BoardsClient;
  files: FilesClient;
  filesProxy: FilesProxy;
  webhooks: WebhooksClient;
  access: ProjectAccessResolver;
  /** User references (creator, owner, author...) for responses, cached; forgotten on `PUT /me`. */
  users: UserDirectory;
  /** Cached key verifications, dropped when a key is deleted or its user changes. */
  apiKeys: ApiKeyAuthenticator;
  /** For what a handler must tell operators about (a failed compensation); never bodies or personal data. */
  logger: Logger;
  /** OPERATOR_TOKEN: the admin endpoints' credential; undefined = they are 404. */
  operatorToken?: string;
}
