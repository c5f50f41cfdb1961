import { BackgroundConsumer, createKafka, kafkaSecurity, topicSettings } from '@flowboard/messaging';
import { createPool, type Pool } from '@flowboard/pg-kit';
import { loadWebhooksProto } from '@flowboard/proto';
import {
  counter,
  createGrpcServer,
  createLogger,
  createMetricsRegistry,
  gaugesOfOneRead,
  histogram,
  metricsEndpoint,
  observePool,
  type Logger,
  type MetricsRegistry,
} from '@flowboard/service-kit';
import { makeAttemptDelivery } from './application/attempt-delivery';
import { makeCheckTarget } from './application/check-target';
import { makeCreateWebhook } from './application/create-webhook';
import { makeDeleteWebhook } from './application/delete-webhook';
import { Dispatcher } from './application/dispatcher';
import { makeForgetProject } from './application/forget-project';
import { makeGetWebhook } from './application/get-webhook';
import { makeEventIngestion } from './application/ingest-event';
import { makeListDeliveries } from './application/list-deliveries';
import { makeListWebhooks } from './application/list-webhooks';
import { makePingWebhook } from './application/ping-webhook';
import { makeRedeliverDelivery } from './application/redeliver-delivery';
import type { PayloadRenderer } from './application/ports';
import { makeUpdateWebhook } from './application/update-webhook';
import type { WebhooksConfig } from './config';
import { deliveryRepository } from './db/delivery-repository';
import { webhookRepository } from './db/webhook-repository';
import { membershipNames } from './clients/membership-names';
import { createResourceEventsHandler, WEBHOOK_TOPICS } from './events/resource-events.handler';
import { webhooksHandlers } from './grpc/webhooks.handlers';
import { dnsResolver } from './http/dns-resolver';
import { createWebhookSender } from './http/webhook-sender';
import { createApiRenderer } from './render/api-renderer';

export interface WebhooksApp {
  /** Serves gRPC, joins the consumer group in the background and starts delivering; resolves to the gRPC port. */
  start(): Promise<{ grpcPort: number }>;
  /** Consumer off → gRPC drain and dispatcher drain (attempts past DISPATCH_DRAIN_MS are abandoned) → pool end. */
  stop(): Promise<void>;
  /** True once the consumer has joined its group. */
  consuming(): boolean;
  /** One retention sweep now (tests, operators); the timer runs it every SWEEP_INTERVAL_SECONDS. */
  sweep(): Promise<number>;
  /** The bound metrics port once started (METRICS_PORT 0 = any free port). */
  metricsPort(): number;
  readonly logger: Logger;
}

/** Sent with every attempt; receivers' logs show who called. */
export const USER_AGENT = 'Flowboard-Webhooks/1.0';

/** Waits between attempts to join the consumer group: doubling from the first to the second. */
const CONSUMER_RETRY_MS = { initial: 1_000, max: 30_000 };

export interface WebhooksOverrides {
  /** Replaces the renderer (which asks membership for names): tests of delivery alone. */
  renderer?: PayloadRenderer;
}

/** Composition root: pool, repositories, use cases, the gRPC server, the consumer and the dispatcher. */
export function createApp(
  config: WebhooksConfig,
  logger: Logger = createLogger('webhooks', config.LOG_LEVEL),
  overrides: WebhooksOverrides = {},
): WebhooksApp {
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    applicationName: 'webhooks',
    max: config.DATABASE_POOL_SIZE,
  });
  pool.on('error', (err) => logger.error({ err }, 'idle PostgreSQL client failed'));
  const webhooks = webhookRepository(pool, config.SECRET_ENCRYPTION_KEY);
  const deliveries = deliveryRepository(pool, config.SECRET_ENCRYPTION_KEY);
  const metrics = createMetricsRegistry('webhooks');
  observePool(metrics, pool);
  observeBacklog(metrics, pool, logger);
  const metricsServer = metricsEndpoint(metrics, { port: config.METRICS_PORT, host: config.HOST, logger });

  const allowList = config.WEBHOOK_ALLOWED_HOSTS;
  const checkTarget = makeCheckTarget({ resolver: dnsResolver, allowList });
  const attempts = counter(metrics, {
    name: 'flowboard_webhook_attempts_total',
    help: 'Webhook delivery attempts by what followed: succeeded, retry, give-up',
    labelNames: ['outcome'],
  });
  const attemptSeconds = histogram(metrics, {
    name: 'flowboard_webhook_attempt_duration_seconds',
    help: 'How long webhook attempts took, DNS to the answer',
    labelNames: ['ok'],
  });
  const dispatcher = new Dispatcher({
    deliveries,
    attempt: makeAttemptDelivery({
      deliveries,
      sender: createWebhookSender({
        resolver: dnsResolver,
        allowList,
        timeoutMs: config.DELIVERY_TIMEOUT_MS,
        maxResponseBytes: config.DELIVERY_MAX_RESPONSE_BYTES,
      }),
      retry: {
        initialMs: config.RETRY_INITIAL_MS,
        maxMs: config.RETRY_MAX_MS,
        giveUpAfterMs: config.RETRY_GIVE_UP_AFTER_MS,
      },
      userAgent: USER_AGENT,
      logger,
      observe: (outcome, result) => {
        attempts.inc({ outcome });
        attemptSeconds.observe({ ok: String(result.ok) }, result.latencyMs / 1000);
      },
    }),
    concurrency: config.DISPATCH_CONCURRENCY,
    intervalMs: config.DISPATCH_INTERVAL_MS,
    leaseMs: config.DELIVERY_TIMEOUT_MS + config.DELIVERY_LEASE_MARGIN_MS,
    logger,
  });
  const wake = () => dispatcher.wake();

  const proto = loadWebhooksProto();
  const grpcServer = createGrpcServer({
    host: config.HOST,
    port: config.GRPC_PORT,
    logger,
    metrics,
    services: [
      {
        name: 'flowboard.webhooks.v1.WebhooksService',
        definition: proto.flowboard.webhooks.v1.WebhooksService.service,
        implementation: webhooksHandlers(logger, {
          createWebhook: makeCreateWebhook({
            webhooks,
            checkTarget,
            maxPerProject: config.MAX_WEBHOOKS_PER_PROJECT,
          }),
          listWebhooks: makeListWebhooks(webhooks),
          getWebhook: makeGetWebhook(webhooks),
          updateWebhook: makeUpdateWebhook({ webhooks, checkTarget }),
          deleteWebhook: makeDeleteWebhook(webhooks),
          listDeliveries: makeListDeliveries({ webhooks, deliveries }),
          redeliverDelivery: makeRedeliverDelivery({ webhooks, deliveries, wake }),
          pingWebhook: makePingWebhook({ deliveries, wake }),
        }),
      },
    ],
  });

  const names = overrides.renderer
    ? undefined
    : membershipNames(config.MEMBERSHIP_ADDR, config.GRPC_DEADLINE_MS, metrics);
  const renderer = overrides.renderer ?? createApiRenderer(names!);
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'webhooks',
    logger,
    ...kafkaSecurity(config),
  });
  const consumer = new BackgroundConsumer({
    kafka,
    groupId: config.KAFKA_GROUP_ID,
    topics: WEBHOOK_TOPICS,
    topicSettings: topicSettings(config),
    fetch: { maxWaitMs: config.KAFKA_FETCH_WAIT_MS },
    logger,
    metrics,
    ...createResourceEventsHandler({
      ingestion: makeEventIngestion({ deliveries, renderer, wake }),
      forgetProject: makeForgetProject(webhooks),
      logger,
    }),
    joinRetryMs: CONSUMER_RETRY_MS,
  });

  const sweep = () => deliveries.sweep(config.RETENTION_DAYS);
  let sweeping: Promise<unknown> | undefined;
  const sweepOnce = () =>
    (sweeping ??= sweep()
      .then((removed) => removed > 0 && logger.info({ removed }, 'old webhook events swept'))
      .catch((err: unknown) => logger.warn({ err }, 'webhook event sweep failed; next run retries'))
      .finally(() => (sweeping = undefined)));
  let sweepTimer: NodeJS.Timeout | undefined;

  let stopped: Promise<void> | undefined;
  return {
    logger,
    metricsPort: metricsServer.port,
    async start() {
      await metricsServer.start();
      const grpcPort = await grpcServer.start();
      consumer.start();
      dispatcher.start();
      if (config.SWEEP_INTERVAL_SECONDS > 0) {
        sweepTimer = setInterval(() => void sweepOnce(), config.SWEEP_INTERVAL_SECONDS * 1000);
        sweepTimer.unref();
      }
      return { grpcPort };
    },
    consuming: () => consumer.isReady(),
    sweep,
    stop: () =>
      (stopped ??= (async () => {
        clearInterval(sweepTimer);
        await consumer.stop();
        await Promise.all([grpcServer.stop(), dispatcher.stop(config.DISPATCH_DRAIN_MS)]);
        await sweeping;
        names?.close();
        await pool.end();
        await metricsServer.stop();
      })()),
  };
}

/**
 * `flowboard_webhook_deliveries_pending` and the age of the oldest due one, read at scrape time: a growing
 * backlog or an old due delivery means the dispatchers do not keep up (or receivers are down).
 */
function observeBacklog(registry: MetricsRegistry, pool: Pool, logger: Logger): void {
  gaugesOfOneRead(registry, {
    read: async () =>
      (
        await pool.query<{ pending: number; overdue: number }>(
          `SELECT count(*)::int AS pending,
                  coalesce(extract(epoch FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now())), 0)::float8
                    AS overdue
           FROM deliveries WHERE status = 'pending'`,
        )
      ).rows[0]!,
    onError: (err) => logger.warn({ err }, 'could not read the webhook backlog'), // the last values stay
    gauges: [
      {
        name: 'flowboard_webhook_deliveries_pending',
        help: 'Webhook deliveries waiting for an attempt or a retry',
        value: (backlog) => backlog.pending,
      },
      {
        name: 'flowboard_webhook_oldest_due_seconds',
        help: 'How long the oldest due webhook delivery has waited past its time',
        value: (backlog) => backlog.overdue,
      },
    ],
  });
}
