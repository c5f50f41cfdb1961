import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeEvent, projectDeletedV1, resourceChangedV1, type ResourceChangedV1 } from '@flowboard/events';
import { createKafka, ensureTopics, KafkaPublisher } from '@flowboard/messaging';
import { createPool, migrate } from '@flowboard/pg-kit';
import { loadWebhooksProto, type webhooks } from '@flowboard/proto';
import { createLogger, deriveClient, type DerivedClient, type Logger } from '@flowboard/service-kit';
import { requireEnv, uniqueSuffix, waitFor } from '@flowboard/testing';
import { createApp, type WebhooksApp } from '../../src/app';
import type { PayloadRenderer } from '../../src/application/ports';
import { loadWebhooksConfig, type WebhooksConfig } from '../../src/config';
import { MIGRATIONS_DIR } from '../../src/db/migrations-dir';
import { sign } from '../../src/domain/signature';

/** The real stack's PostgreSQL and Kafka, from the environment `npm test` sets (or infra.env). */
export const env = requireEnv('WEBHOOKS_DATABASE_URL', 'KAFKA_BROKERS');

export const logger: Logger = createLogger('webhooks-test', process.env.LOG_LEVEL ?? 'silent');

/** One fixed key for every test run, so a run's leftovers never meet a key that cannot open them. */
export const TEST_SEALING_KEY = Buffer.alloc(32, 7).toString('base64');

/** Ids of projects no real run creates, so tests never meet each other's data. */
export const newProjectId = () => 1_000_000_000 + Math.floor(Math.random() * 8_000_000_000_000);

/** A database pool of the tests' own (setup, cleanup, looking behind the API). */
export const db = createPool({
  connectionString: env.WEBHOOKS_DATABASE_URL,
  schema: 'webhooks',
  applicationName: 'webhooks-test',
  max: 2,
});

export const migrateSchema = () => migrate(db, { schema: 'webhooks', dir: MIGRATIONS_DIR });

/**
 * An in-process instance: the real stack, every port 0, its own consumer group (never the running service's, which
 * would lose its partitions to the test), the loopback receiver allowed, retries compressed to seconds.
 */
export function testConfig(groupId: string, overrides: Record<string, string> = {}): WebhooksConfig {
  return loadWebhooksConfig({
    DATABASE_URL: env.WEBHOOKS_DATABASE_URL,
    KAFKA_BROKERS: env.KAFKA_BROKERS,
    KAFKA_GROUP_ID: groupId,
    GRPC_PORT: '0',
    METRICS_PORT: '0',
    SECRET_ENCRYPTION_KEY: TEST_SEALING_KEY,
    // Never called: these tests render with `resourceAsPublished` (rendering is the e2e tests' and unit tests').
    MEMBERSHIP_ADDR: '127.0.0.1:1',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.0/8',
    DELIVERY_TIMEOUT_MS: '2000',
    DELIVERY_LEASE_MARGIN_MS: '1000',
    RETRY_INITIAL_MS: '100',
    RETRY_MAX_MS: '400',
    RETRY_GIVE_UP_AFTER_MS: '6000',
    DISPATCH_INTERVAL_MS: '100',
    DISPATCH_DRAIN_MS: '2000',
    SWEEP_INTERVAL_SECONDS: '0',
    LOG_LEVEL: 'silent',
    ...overrides,
  });
}

/** The payload without names (no membership here): the project's and actor's ids, and the resource as published. */
export const resourceAsPublished: PayloadRenderer = {
  render: async ({ data }) => ({
    project: { id: data.projectId },
    actor: { id: data.actorId },
    data: data.resource,
  }),
};

export type WebhooksClient = DerivedClient<webhooks.WebhooksServiceClient>;

export interface StartedWebhooks {
  app: WebhooksApp;
  client: WebhooksClient;
  stop(): Promise<void>;
}

/** Boots the service in-process and waits until its consumer has joined the group. */
export async function startWebhooks(config: WebhooksConfig): Promise<StartedWebhooks> {
  const app = createApp(config, logger, { renderer: resourceAsPublished });
  const { grpcPort } = await app.start();
  const client = deriveClient(
    loadWebhooksProto().flowboard.webhooks.v1.WebhooksService,
    `127.0.0.1:${grpcPort}`,
    {
      deadlineMs: 10_000,
    },
  );
  await waitFor(async () => (app.consuming() ? true : undefined), 60_000, 'the consumer to join its group');
  return {
    app,
    client,
    async stop() {
      client.close();
      await app.stop();
    },
  };
}

export const groupId = () => `webhooks-int-${uniqueSuffix()}`;

// --- Kafka ------------------------------------------------------------------------------------------------

const kafka = createKafka({ brokers: env.KAFKA_BROKERS.split(','), clientId: 'webhooks-test', logger });
const publisher = new KafkaPublisher(kafka);

export const ensureTopic = () => ensureTopics(kafka, [resourceChangedV1.topic, projectDeletedV1.topic]);

export type ChangeEvent = ReturnType<typeof change>;

/** A change event as a publishing service makes it. */
export const change = (
  projectId: number,
  type: ResourceChangedV1['type'],
  subject: string,
  resource: Record<string, unknown> = {},
) => makeEvent(resourceChangedV1, 'webhooks-test', { projectId, actorId: 42, type, subject, resource });

/** Published as the services' outbox relays do: keyed by project, so one project's events stay in order. */
export const publish = (...events: ChangeEvent[]) =>
  publisher.publish(
    resourceChangedV1.topic,
    events.map((event) => ({ key: String(event.data.projectId), value: JSON.stringify(event) })),
  );

/** membership's event when a project is deleted. */
export const publishProjectDeleted = (projectId: number) =>
  publisher.publish(projectDeletedV1.topic, [
    {
      key: String(projectId),
      value: JSON.stringify(
        makeEvent(projectDeletedV1, 'webhooks-test', {
          projectId,
          projectName: 'Gone',
          ownerId: 1,
          deletedBy: 1,
          deletedAt: new Date().toISOString(),
        }),
      ),
    },
  ]);

export const closeKafka = () => publisher.disconnect();

/**
 * After a suite: the publisher closed, and the suite's projects' webhooks and events gone, so nothing of theirs is
 * left to deliver in later runs; then the pool closed.
 */
export async function releaseSuite(projectIds: readonly number[]): Promise<void> {
  await closeKafka();
  await db.query('DELETE FROM webhooks WHERE project_id = ANY($1::bigint[])', [projectIds]);
  await db.query('DELETE FROM events WHERE project_id = ANY($1::bigint[])', [projectIds]);
  await db.end();
}

// --- the receiver ------------------------------------------------------------------------------------------

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  headers: http.IncomingHttpHeaders;
  path: string;
  /** What the receiver answered (0: it never answered, e.g. the caller went away). */
  status: number;
  at: number;
}

export type Responder = (request: Received, raw: http.IncomingMessage) => number | Promise<number>;

/** A webhook receiver on loopback (allowed by the tests' WEBHOOK_ALLOWED_HOSTS), recording every request. */
export class Receiver {
  readonly requests: Received[] = [];
  respond: Responder = () => 200;
  /** Extra headers of the next answers (e.g. Location for a redirect). */
  headers: Record<string, string> = {};
  private server: http.Server | undefined;
  port = 0;

  async start(port = 0): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', async () => {
        const received: Received = {
          id: String(req.headers['webhook-id']),
          timestamp: String(req.headers['webhook-timestamp']),
          signature: String(req.headers['webhook-signature']),
          body: Buffer.concat(chunks).toString('utf8'),
          headers: req.headers,
          path: req.url ?? '',
          status: 0,
          at: Date.now(),
        };
        this.requests.push(received);
        const status = await this.respond(received, req);
        if (res.destroyed) return;
        received.status = status;
        res.writeHead(status, { 'content-type': 'text/plain', ...this.headers });
        res.end(status >= 400 ? `receiver says ${status}` : 'ok');
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Down: refuses connections (the port stays ours to listen on again). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Requests answered 2xx, by event id. */
  succeeded(): Map<string, Received[]> {
    const map = new Map<string, Received[]>();
    for (const r of this.requests.filter((r) => r.status >= 200 && r.status < 300)) {
      map.set(r.id, [...(map.get(r.id) ?? []), r]);
    }
    return map;
  }

  /** Waits until every id has been answered 2xx. */
  waitForAll(ids: readonly string[], timeoutMs = 30_000): Promise<true> {
    return waitFor(
      async () => (ids.every((id) => this.succeeded().has(id)) ? true : undefined),
      timeoutMs,
      `${ids.length} events to be delivered`,
    );
  }
}

/** What a receiver does (Standard Webhooks): recompute the signature with the secret and compare. */
export const verifies = (secret: string, r: Received): boolean =>
  r.signature === sign(secret, { id: r.id, timestamp: Number(r.timestamp), body: r.body });

/**
 * The delivery log once nothing in it is pending. A receiver has a request before the sender has recorded the
 * answer, so a log read right after the receiver saw the last 2xx can still show that delivery pending.
 */
export const settledDeliveries = (client: WebhooksClient, projectId: number, webhookId: number) =>
  waitFor(
    async () => {
      const { deliveries } = await client.listDeliveries({
        project_id: projectId,
        webhook_id: webhookId,
        page_size: 100,
      });
      return deliveries.every((d) => d.status !== 'pending') ? deliveries : undefined;
    },
    10_000,
    `the delivery log of webhook ${webhookId} to settle`,
  );

export { waitFor };
