import Redis from 'ioredis';
import { inviteCreatedV1 } from '@flowboard/events';
import { createKafka, EventConsumer } from '@flowboard/messaging';
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

/** A consumer start stuck on an unreachable broker must not hold shutdown past the grace period. */
const START_ABANDON_MS = 5_000;

export function createApp(config: NotifierConfig, overrides: NotifierOverrides = {}): NotifierApp {
  const logger = overrides.logger ?? createLogger('notifier', config.LOG_LEVEL);
  const retry = overrides.retryDelayMs ?? { initial: 1_000, max: 30_000 };

  const kafka = createKafka({ brokers: config.KAFKA_BROKERS, clientId: 'notifier', logger });
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

  let consumer: EventConsumer | undefined;
  let stopping = false;
  let wake: (() => void) | undefined;
  let joining: Promise<void> | undefined;
  const retryDelayMs = sendRetryDelay({ initialMs: config.RETRY_INITIAL_MS, maxMs: config.RETRY_MAX_MS });
  // Ready = in the consumer group and delivering: a partition waiting out a mail-server (or Redis) failure makes
  // /readyz 503 until it delivers again, so an outage shows on the pod; /livez stays 200 (a restart cannot help).
  const http = createHealthServer(
    () => !stopping && consumer?.isReady() === true && consumer.retrying().length === 0,
  );

  /** Joins the group, retrying with exponential back-off until it works or the app stops. */
  async function joinGroup(): Promise<void> {
    for (let attempt = 0; !stopping; attempt++) {
      const candidate = new EventConsumer({
        kafka,
        groupId: config.KAFKA_GROUP_ID,
        topics: [inviteCreatedV1.topic],
        logger,
        metrics,
        handle,
        retryDelayMs,
      });
      consumer = candidate;
      try {
        await candidate.start();
        if (stopping)
          await candidate.stop(); // stop() ran while we were connecting
        else
          logger.info(
            { topic: inviteCreatedV1.topic, group: config.KAFKA_GROUP_ID },
            'consuming invite events',
          );
        return;
      } catch (err) {
        await candidate.stop().catch(() => undefined);
        if (stopping) return;
        const delay = Math.min(retry.max, retry.initial * 2 ** attempt);
        logger.warn({ err, retryInMs: delay }, 'could not start the Kafka consumer; retrying');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  }

  let stopped: Promise<void> | undefined;

  return {
    metricsPort: metricsServer.port,
    async start() {
      await metricsServer.start();
      const port = await listen(http, config.HTTP_PORT, config.HTTP_HOST);
      logger.info({ port }, 'health endpoints listening');
      joining = joinGroup();
      return port;
    },

    stop() {
      stopped ??= (async () => {
        stopping = true; // /readyz answers 503 from now on
        wake?.();
        await consumer?.stop().catch((err: unknown) => logger.warn({ err }, 'consumer stop failed'));
        if (joining)
          await Promise.race([joining, new Promise((r) => setTimeout(r, START_ABANDON_MS).unref())]);
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
