import http from 'node:http';
import Redis from 'ioredis';
import {
  drainServer,
  KEEP_ALIVE_DRAIN_MS,
  createLogger,
  createMetricsRegistry,
  listen,
  metricsEndpoint,
  type Logger,
} from '@flowboard/service-kit';
import { ApiKeyAuthenticator } from './authz/api-keys';
import { ProjectAccessResolver } from './authz/project-access';
import { createCaches } from './cache';
import { BOARDS_SERVICE, createBoardsClient } from './clients/boards.client';
import { createFilesClient, FILES_SERVICE } from './clients/files.client';
import { createFilesProxy } from './clients/files-proxy';
import { createMembershipClient, MEMBERSHIP_SERVICE } from './clients/membership.client';
import { createWebhooksClient, WEBHOOKS_SERVICE } from './clients/webhooks.client';
import type { GatewayConfig } from './config';
import { createHttpApp } from './http/http-app';
import { createRateLimits } from './http/rate-limit';
import { Router } from './http/router';
import { routeTable } from './http/routes';
import { createReadiness } from './readiness';
import { IdempotencyStore } from './idempotency';

/** Request line plus headers. */
const MAX_REQUEST_HEAD_BYTES = 64 * 1024;

export interface AppOverrides {
  logger?: Logger;
}

export interface App {
  /** Listens; resolves to the bound port (tests pass PORT 0). */
  start(): Promise<number>;
  /** Readiness off, stop intake and drain, then close upstream channels and Redis. */
  stop(): Promise<void>;
  /** The bound metrics port once started (METRICS_PORT 0 = any free port). */
  metricsPort(): number;
}

/** Composition root: one client per upstream, one Redis connection, one route table, one HTTP server. */
export function createApp(config: GatewayConfig, overrides: AppOverrides = {}): App {
  const logger = overrides.logger ?? createLogger('gateway', config.LOG_LEVEL);
  const redis = createRedis(config.REDIS_URL, logger);
  const metrics = createMetricsRegistry('gateway');
  // Its own listener, never the API's port: the public must not read the numbers.
  const metricsServer = metricsEndpoint(metrics, { port: config.METRICS_PORT, host: config.HOST, logger });
  const deadline = config.GRPC_DEADLINE_MS;
  const membership = createMembershipClient(config.MEMBERSHIP_ADDR, deadline, metrics);
  const boards = createBoardsClient(config.BOARDS_ADDR, deadline, metrics);
  const files = createFilesClient(config.FILES_ADDR, deadline, metrics);
  const filesProxy = createFilesProxy(config.FILES_HTTP_URL);
  const webhooks = createWebhooksClient(config.WEBHOOKS_ADDR, deadline, metrics);
  const caches = createCaches(
    redis,
    membership,
    {
      userTtlSeconds: config.USER_CACHE_TTL_SECONDS,
      responseCacheBytes: config.RESPONSE_CACHE_MB * 1024 * 1024,
      responseCacheTtlMs: config.RESPONSE_CACHE_TTL_SECONDS * 1000,
    },
    metrics,
    logger,
  );
  const authenticator = new ApiKeyAuthenticator(
    membership,
    caches.decisions,
    config.AUTH_CACHE_TTL_SECONDS,
    caches.epoch,
  );
  const access = new ProjectAccessResolver(
    membership,
    caches.decisions,
    config.ACCESS_CACHE_TTL_SECONDS,
    caches.epoch,
  );
  const readiness = createReadiness(redis, [
    { address: config.MEMBERSHIP_ADDR, service: MEMBERSHIP_SERVICE },
    { address: config.BOARDS_ADDR, service: BOARDS_SERVICE },
    { address: config.FILES_ADDR, service: FILES_SERVICE },
    { address: config.WEBHOOKS_ADDR, service: WEBHOOKS_SERVICE },
  ]);
  const router = new Router(
    routeTable({
      membership,
      boards,
      files,
      filesProxy,
      webhooks,
      access,
      apiKeys: authenticator,
      users: caches.users,
      operatorToken: config.OPERATOR_TOKEN,
      logger,
    }),
  );
  const server = http.createServer(
    // A filter may be 4,000 characters, up to 48 KiB once percent-encoded: Node's default 16 KiB of request line
    // and headers would refuse it with a bare 431 before the API could answer 400 for a longer one.
    { maxHeaderSize: MAX_REQUEST_HEAD_BYTES },
    createHttpApp({
      logger,
      router,
      authenticator,
      access,
      cacheEpoch: caches.epoch,
      boardCache: caches.board,
      readiness,
      bodyLimit: config.BODY_LIMIT_BYTES,
      idempotency: new IdempotencyStore(
        redis,
        {
          ttlMs: config.IDEMPOTENCY_TTL_SECONDS * 1000,
          leaseMs: config.IDEMPOTENCY_LEASE_SECONDS * 1000,
        },
        logger,
      ),
      rateLimits: createRateLimits(
        redis,
        {
          enabled: config.RATE_LIMIT_ENABLED,
          points: config.RATE_LIMIT_POINTS,
          windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
          anonymousPoints: config.RATE_LIMIT_ANONYMOUS_POINTS,
        },
        logger,
      ),
      trustProxy: config.TRUST_PROXY,
      metrics,
    }),
  );

  return {
    metricsPort: metricsServer.port,
    async start() {
      await metricsServer.start();
      // Redis is a cache: the gateway starts (and serves, more slowly) without it; /readyz tells. It waits a
      // moment for the connection, though, so the first requests already share the replicas' rate-limit
      // counters and caches instead of counting in this process's memory.
      const connected = redis
        .connect()
        .catch((err: Error) => logger.warn({ err: { message: err.message } }, 'redis not reachable yet'));
      await Promise.race([
        connected,
        new Promise((resolve) => setTimeout(resolve, REDIS_CONNECT_GRACE_MS).unref()),
      ]);
      const port = await listen(server, config.PORT, config.HOST);
      logger.info({ port }, 'gateway listening');
      return port;
    },
    async stop() {
      readiness.stop();
      await drainServer(server, KEEP_ALIVE_DRAIN_MS);
      membership.close();
      boards.close();
      files.close();
      webhooks.close();
      redis.disconnect();
      await metricsServer.stop();
    },
  };
}

/** How long start() waits for Redis before serving without it. */
const REDIS_CONNECT_GRACE_MS = 2_000;

/** Fails fast while disconnected (no offline queue), so a Redis outage costs a cache miss, not a hang. */
function createRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 500,
    // Commands issued within one turn of the event loop (by every request in flight) go out as one write and
    // come back as one read: under load, most of a request's Redis calls share their round trip with others'.
    enableAutoPipelining: true,
  });
  let lastError = '';
  redis.on('error', (err: Error) => {
    if (err.message !== lastError) logger.warn({ err: { message: err.message } }, 'redis error');
    lastError = err.message;
  });
  redis.on('ready', () => {
    lastError = '';
  });
  return redis;
}
