import type { Logger } from '@flowboard/service-kit';
import type { ApiKeyAuthenticator } from '../../authz/api-keys';
import type { ProjectAccessResolver } from '../../authz/project-access';
import type { BoardsClient } from '../../clients/boards.client';
import type { FilesClient } from '../../clients/files.client';
import type { FilesProxy } from '../../clients/files-proxy';
import type { MembershipClient } from '../../clients/membership.client';
import type { WebhooksClient } from '../../clients/webhooks.client';
import type { CacheEpoch, UserDirectory } from '../../cache';
import type { StreamHub } from '../../stream';

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
  /** The change stream (`GET P/events`, events.routes.ts); undefined (no feed configured): it answers 503. */
  stream?: StreamRouteDeps;
}

/** What the change stream's route serves from, and the limits of its connections (events.routes.ts). */
export interface StreamRouteDeps {
  /**
   * The replica's hub, which its Kafka feed fills; undefined until the feed has read what Kafka held when the replica
   * started (the route answers 503 with Retry-After meanwhile).
   */
  hub: () => StreamHub | undefined;
  /**
   * Read again (at most once a second for all the replica's streams) before an open stream's access check, so that
   * a key deleted or a member removed through any replica is seen by the next check.
   */
  cacheEpoch: Pick<CacheEpoch, 'refresh'>;
  /** An SSE connection without events gets a comment line (`: keep-alive`) this often. */
  heartbeatMs: number;
  /** An open SSE stream (or a waiting long-poll) checks its caller's key and project access again this often. */
  accessRecheckMs: number;
  /** Open streams (SSE, and long-polls while they wait) per API key on this replica; beyond it, 429. */
  maxStreamsPerKey: number;
  /** A long-poll waits at most this long, whatever its `wait` (at most 60 s) asks. */
  longPollMaxWaitMs: number;
}

/** The change stream's limits when configuration says nothing else. */
export const STREAM_ROUTE_DEFAULTS: Readonly<Omit<StreamRouteDeps, 'hub' | 'cacheEpoch'>> = {
  heartbeatMs: 15_000,
  accessRecheckMs: 5_000,
  maxStreamsPerKey: 10,
  longPollMaxWaitMs: 60_000,
};
