import type http from 'node:http';
import {
  BackgroundConsumer,
  createKafka,
  kafkaSecurity,
  createLazyTopicPublisher,
  topicSettings,
} from '@flowboard/messaging';
import { createPool, OutboxRelay, stopOutbox } from '@flowboard/pg-kit';
import { loadFilesProto } from '@flowboard/proto';
import {
  drainServer,
  KEEP_ALIVE_DRAIN_MS,
  createGrpcServer,
  createLogger,
  createMetricsRegistry,
  gauge,
  listen,
  metricsEndpoint,
  observePool,
  type Logger,
  type MetricsRegistry,
} from '@flowboard/service-kit';
import { makeDeleteAttachment } from './application/delete-attachment';
import { makeGetAttachment } from './application/get-attachment';
import { makeGetStorageUsage } from './application/get-storage-usage';
import { makeListAttachments } from './application/list-attachments';
import { makeOpenAttachmentContent } from './application/open-attachment-content';
import { makePurgeAttachments } from './application/purge-attachments';
import { makeRenameAttachment } from './application/rename-attachment';
import { makeSweepStorage, type SweepResult } from './application/sweep-storage';
import { makeUploadAttachments } from './application/upload-attachments';
import { createMinioBlobStore } from './blob/minio-blob-store';
import type { FilesConfig } from './config';
import { attachmentRepository } from './db/attachment-repository';
import type { QuotaStore } from './application/ports';
import { quotaRepository } from './db/quota-repository';
import { createDeletionEventsHandler, DELETION_TOPICS } from './events/deletion-events.handler';
import { filesHandlers } from './grpc/files.handlers';
import { createHttpServer } from './http/server';

export interface FilesApp {
  /** Ensures the bucket, then serves; resolves to the bound ports (tests pass port 0). */
  start(): Promise<{ grpcPort: number; httpPort: number }>;
  /** Sweeper and consumer off → HTTP close → gRPC drain → outbox relay off → pool end. */
  stop(): Promise<void>;
  /** One sweeper run now (tests, operators); the timer runs it every SWEEP_INTERVAL_SECONDS. */
  sweep(): Promise<SweepResult>;
  /** True once the deletion-events consumer has joined its group. */
  consuming(): boolean;
  /** The bound metrics port once started (METRICS_PORT 0 = any free port). */
  metricsPort(): number;
  readonly logger: Logger;
}

const HTTP_DRAIN_MS = 10_000;
/** Reservations without Content-Length grow at least this much at a time (fewer round trips). */
const GROW_STEP_BYTES = 4 * 1024 * 1024;
/** Waits between attempts to join the consumer group: doubling from the first to the second. */
const CONSUMER_RETRY_MS = { initial: 1_000, max: 30_000 };

/**
 * Composition root: pool, blob store, repositories, use cases, the gRPC and HTTP servers, the deletion-events
 * consumer and the outbox relay (attachment change events). Nothing connects until `start`.
 */
export function createApp(
  config: FilesConfig,
  logger: Logger = createLogger('files', config.LOG_LEVEL),
): FilesApp {
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    applicationName: 'files',
    max: config.DATABASE_POOL_SIZE,
  });
  pool.on('error', (err) => logger.error({ err }, 'idle PostgreSQL client failed'));
  const attachments = attachmentRepository(pool, config.DB_SCHEMA);
  const quota = quotaRepository(pool);
  const metrics = createMetricsRegistry('files');
  observePool(metrics, pool);
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'files',
    logger,
    ...kafkaSecurity(config),
  });
  const publisher = createLazyTopicPublisher(kafka, { ...topicSettings(config), logger });
  const relay = new OutboxRelay({
    pool,
    schema: config.DB_SCHEMA,
    publisher,
    logger,
    intervalMs: config.OUTBOX_INTERVAL_MS,
    retentionMs: config.OUTBOX_RETENTION_MINUTES * 60_000,
    metrics,
  });
  observeStorage(metrics, quota, logger);
  const metricsServer = metricsEndpoint(metrics, { port: config.METRICS_PORT, host: config.HOST, logger });
  const blobs = createMinioBlobStore({
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    accessKey: config.S3_ACCESS_KEY,
    secretKey: config.S3_SECRET_KEY,
    bucket: config.S3_BUCKET,
  });

  const proto = loadFilesProto();
  const grpcServer = createGrpcServer({
    host: config.HOST,
    port: config.GRPC_PORT,
    logger,
    metrics,
    services: [
      {
        name: 'flowboard.files.v1.FilesService',
        definition: proto.flowboard.files.v1.FilesService.service,
        implementation: filesHandlers(logger, {
          listAttachments: makeListAttachments(attachments),
          getAttachment: makeGetAttachment(attachments),
          renameAttachment: makeRenameAttachment(attachments, relay.wake),
          deleteAttachment: makeDeleteAttachment({ attachments, blobs, logger, signal: relay.wake }),
          getStorageUsage: makeGetStorageUsage(quota),
        }),
      },
    ],
  });
  const httpServer = createHttpServer({
    logger,
    maxFileBytes: config.MAX_FILE_BYTES,
    uploadAttachments: makeUploadAttachments({
      blobs,
      attachments,
      quota,
      reservations: { ttlSeconds: config.RESERVATION_TTL_SECONDS, growStepBytes: GROW_STEP_BYTES },
      logger,
      signal: relay.wake,
    }),
    openAttachmentContent: makeOpenAttachmentContent({ attachments, blobs }),
  });

  const sweep = makeSweepStorage({
    attachments,
    blobs,
    quota,
    logger,
    orphanAgeMs: config.SWEEP_ORPHAN_AGE_SECONDS * 1000,
  });
  let sweeping: Promise<unknown> | undefined;
  const sweepOnce = () => {
    // One run at a time per process; several replicas sweeping together is harmless (all steps idempotent).
    sweeping ??= sweep()
      .then((result) => {
        if (result.releasedReservations + result.abortedUploads + result.removedObjects > 0) {
          logger.info(result, 'storage swept');
        }
      })
      .catch((err: unknown) => logger.warn({ err }, 'storage sweep failed; next run retries'))
      .finally(() => (sweeping = undefined));
    return sweeping;
  };
  let sweepTimer: NodeJS.Timeout | undefined;

  const handle = createDeletionEventsHandler({
    purge: makePurgeAttachments({ attachments, blobs, logger }),
    logger,
  });
  const consumer = new BackgroundConsumer({
    kafka,
    groupId: config.KAFKA_GROUP_ID,
    topics: DELETION_TOPICS,
    topicSettings: topicSettings(config),
    logger,
    metrics,
    handle,
    joinRetryMs: CONSUMER_RETRY_MS,
  });

  let stopped: Promise<void> | undefined;
  return {
    logger,
    metricsPort: metricsServer.port,
    async start() {
      await metricsServer.start();
      await blobs.ensureBucket();
      const grpcPort = await grpcServer.start();
      const httpPort = await listen(httpServer, config.HTTP_PORT, config.HOST);
      logger.info({ port: httpPort }, 'internal HTTP server listening');
      relay.start();
      consumer.start();
      if (config.SWEEP_INTERVAL_SECONDS > 0) {
        sweepTimer = setInterval(() => void sweepOnce(), config.SWEEP_INTERVAL_SECONDS * 1000);
        sweepTimer.unref();
      }
      return { grpcPort, httpPort };
    },
    sweep,
    consuming: () => consumer.isReady(),
    stop: () =>
      (stopped ??= (async () => {
        clearInterval(sweepTimer);
        await consumer.stop();
        // Both drain at once: the gateway moves to another replica over each of them independently.
        await Promise.all([closeHttp(httpServer, logger), grpcServer.stop()]);
        await sweeping;
        const released = await stopOutbox(relay, publisher, logger);
        // pool.end() waits for checked-out clients; a relay pass still holding one would keep it waiting.
        if (released) await pool.end();
        await metricsServer.stop();
      })()),
  };
}

/** `flowboard_files_storage_bytes{kind="used"|"reserved"}`, summed over accounts at scrape time. */
function observeStorage(registry: MetricsRegistry, quota: QuotaStore, logger: Logger): void {
  gauge(registry, {
    name: 'flowboard_files_storage_bytes',
    help: 'Attachment bytes over all accounts: used (committed) and reserved (uploads in flight)',
    labelNames: ['kind'],
    async collect() {
      try {
        const totals = await quota.totals();
        this.set({ kind: 'used' }, totals.usedBytes);
        this.set({ kind: 'reserved' }, totals.reservedBytes);
      } catch (err) {
        logger.warn({ err }, 'could not read storage totals'); // the last values stay
      }
    },
  });
}

/**
 * Lets keep-alive callers move off (drainServer), stops accepting, lets in-flight transfers finish, and cuts whatever
 * is still open after the grace period.
 */
async function closeHttp(server: http.Server, logger: Logger): Promise<void> {
  const timer = setTimeout(() => {
    logger.warn('HTTP drain timed out; closing open connections');
    server.closeAllConnections();
  }, KEEP_ALIVE_DRAIN_MS + HTTP_DRAIN_MS);
  try {
    await drainServer(server, KEEP_ALIVE_DRAIN_MS);
  } finally {
    clearTimeout(timer);
  }
}
