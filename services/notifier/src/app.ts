import Redis from 'ioredis';
import { inviteCreatedV1 } from '@flowboard/events';
import { BackgroundConsumer, createKafka, kafkaSecurity, topicSettings } from '@flowboard/messaging';
import {
  closeServer,
  createHealthServer,
  createLogger,
  createMetricsRegistry,
  listen,
  metricsEndpoint,
  type Logger,
} from '@flowboard/service-kit';
import type { NotifierConfig } from './config';
import { RedisDedupeStore } from './consumer/dedupe';
import { createInviteCreatedHandler } from './consumer/invite-created.handler';
import { sendRetryDelay } from './consumer/retry-policy';
import { renderInviteEmail } from './email/invite-email';
import { observedMailer } from './email/observed-mailer';
import { createMailSender, createSmtpTransport, type MailSender } from './email/transport';

export { CONSUMER_GROUP } from './config';

export interface NotifierApp {
  /** Serves /livez and /readyz at once and joins the consumer group in the background; resolves to the HTTP port. */
  start(): Promise<number>;
  /** Readiness off → consumer → Redis → SMTP → HTTP. Safe to call more than once. */
  stop(): Promise<void>;
  /** The bound metrics port once started (METRICS_PORT 0 = any free port). */
  metricsPort(): number;
}

export interface NotifierOverrides {
  logger?: Logger;
  /** Replaces the SMTP transport (tests). */
  mailer?: MailSender;
  /** First and longest wait between attempts to join the consumer group. */
  retryDelayMs?: { initial: number; max: number };
}

export function createApp(config: NotifierConfig, overrides: NotifierOverrides = {}): NotifierApp {
  const logger = overrides.logger ?? createLogger('notifier', config.LOG_LEVEL);
  const retry = overrides.retryDelayMs ?? { initial: 1_000, max: 30_000 };

  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'notifier',
    logger,
    ...kafkaSecurity(config),
  });
  // lazyConnect: the first command connects, so a Redis outage at boot delays sending rather than failing start.
  const redis = new Redis(config.REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 3,
    connectTimeout: 5_000,
  });
  let redisHealthy = true;
  redis.on('ready', () => {
    if (!redisHealthy) logger.info('Redis reachable again');
    redisHealthy = true;
  });
  redis.on('error', (err: Error) => {
    if (redisHealthy) logger.warn({ err }, 'Redis unreachable; retrying');
    redisHealthy = false;
  });

  const metrics = createMetricsRegistry('notifier');
  const metricsServer = metricsEndpoint(metrics, {
    port: config.METRICS_PORT,
    host: config.HTTP_HOST,
    logger,
  });
  const mailer = observedMailer(
    overrides.mailer ?? createMailSender(createSmtpTransport(config.SMTP_URL), config.MAIL_FROM),
    metrics,
  );
  const handle = createInviteCreatedHandler({
    dedupe: new RedisDedupeStore(redis, {
      ttlSeconds: config.DEDUPE_TTL_SECONDS,
      pendingTtlSeconds: config.DEDUPE_PENDING_TTL_SECONDS,
    }),
    mailer,
    render: (invite) => renderInviteEmail(invite, { publicBaseUrl: config.PUBLIC_BASE_URL }),
    logger,
  });

  const consumer = new BackgroundConsumer({
    kafka,
    groupId: config.KAFKA_GROUP_ID,
    topics: [inviteCreatedV1.topic],
    topicSettings: topicSettings(config),
    logger,
    metrics,
    handle,
    retryDelayMs: sendRetryDelay({ initialMs: config.RETRY_INITIAL_MS, maxMs: config.RETRY_MAX_MS }),
    joinRetryMs: retry,
  });
  // Ready = in the consumer group and delivering: a partition waiting out a mail-server (or Redis) failure makes
  // /readyz 503 until it delivers again, so an outage shows on the pod; /livez stays 200 (a restart cannot help).
  const http = createHealthServer(() => consumer.isReady() && consumer.retrying().length === 0);

  let stopped: Promise<void> | undefined;

  return {
    metricsPort: metricsServer.port,
    async start() {
      await metricsServer.start();
      const port = await listen(http, config.HTTP_PORT, config.HTTP_HOST);
      logger.info({ port }, 'health endpoints listening');
      consumer.start();
      return port;
    },

    stop() {
      stopped ??= (async () => {
        await consumer.stop(); // not ready from its first line on: /readyz answers 503
        if (redis.status === 'wait' || redis.status === 'end') redis.disconnect();
        else await redis.quit().catch(() => redis.disconnect());
        mailer.close();
        await closeServer(http);
        await metricsServer.stop();
        logger.info('notifier stopped');
      })();
      return stopped;
    },
  };
}
