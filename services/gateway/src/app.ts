import http from 'node:http';
import {
  Breaker,
  createUpstream,
  drainServer,
  KEEP_ALIVE_DRAIN_MS,
  createLogger,
  createMetricsRegistry,
  listen,
  logTransitions,
  metricsEndpoint,
  observeDependency,
  type Logger,
  type MetricsRegistry,
  type UpstreamOptions,
} from '@flowboard/service-kit';
import type Redis from 'ioredis';
import { ApiKeyAuthenticator } from './authz/api-keys';
import { KeyUseRecorder } from './authz/key-uses';
import { ProjectAccessResolver } from './authz/project-access';
import { createCaches } from './cache';
import { boardsUpstream, createBoardsClient } from './clients/boards.client';
import { createFilesClient, filesUpstream } from './clients/files.client';
import { createFilesProxy, probeFilesHttp } from './clients/files-proxy';
import { createMembershipClient, membershipUpstream } from './clients/membership.client';
import { createWebhooksClient, webhooksUpstream } from './clients/webhooks.client';
import type { GatewayConfig } from './config';
import { createHttpApp } from './edge/http-app';
import { createRateLimits } from './edge/rate-limit';
import { Router } from './api/router';
import { routeTable } from './api/resources';
import { STREAM_ROUTE_DEFAULTS } from './api/resources/deps';
import type { PendingInvalidations } from './cache';
import { createReadiness } from './readiness';
import { IdempotencyStore } from './idempotency';
import { createRedis } from './redis';
import { createChangeFeed } from './feed';

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

/**
 * Composition root: one channel, breaker and health probe per upstream (docs/design.md, "Failure isolation"), one
 * Redis connection, one route table, one HTTP server.
 */
export function createApp(config: GatewayConfig, overrides: AppOverrides = {}): App {
  const logger = overrides.logger ?? createLogger('gateway', config.LOG_LEVEL);
  const redis = createRedis(
    config.REDIS_URL,
    { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS, timeoutsToDown: config.REDIS_TIMEOUTS_TO_DOWN },
    logger,
  );
  const metrics = createMetricsRegistry('gateway');
  // Its own listener, never the API's port: the public must not read the numbers.
  const metricsServer = metricsEndpoint(metrics, { port: config.METRICS_PORT, host: config.HOST, logger });
  const deadline = config.GRPC_DEADLINE_MS;
  const breakerSettings = {
    failuresToOpen: config.DEPENDENCY_FAILURES_TO_OPEN,
    probeFailuresToOpen: config.DEPENDENCY_PROBE_FAILURES_TO_OPEN,
    halfOpenAfterMs: config.DEPENDENCY_OPEN_MS,
  };
  const probe = {
    intervalMs: config.DEPENDENCY_PROBE_INTERVAL_MS,
    timeoutMs: config.DEPENDENCY_PROBE_TIMEOUT_MS,
  };
  const upstream = (
    name: string,
    address: string,
    known: Pick<UpstreamOptions, 'services' | 'healthService'>,
  ) =>
    createUpstream({
      name,
      address,
      ...known,
      breaker: breakerSettings,
      probe,
      connectTimeoutMs: config.DEPENDENCY_CONNECT_TIMEOUT_MS,
      metrics,
      logger,
    });
  const upstreams = [
    upstream('membership', config.MEMBERSHIP_ADDR, membershipUpstream()),
    upstream('boards', config.BOARDS_ADDR, boardsUpstream()),
    upstream('files', config.FILES_ADDR, filesUpstream()),
    upstream('webhooks', config.WEBHOOKS_ADDR, webhooksUpstream()),
  ] as const;
  const [membershipUp, boardsUp, filesUp, webhooksUp] = upstreams;
  const membership = createMembershipClient(membershipUp, deadline);
  const boards = createBoardsClient(boardsUp, deadline);
  const files = createFilesClient(filesUp, deadline);
  const webhooks = createWebhooksClient(webhooksUp, deadline);
  // files' HTTP port (attachment bytes) is a dependency of its own: same process as its gRPC port, other socket.
  const filesHttp = new Breaker({
    ...breakerSettings,
    name: 'files-http',
    probeIntervalMs: probe.intervalMs,
  });
  observeDependency(metrics, filesHttp);
  logTransitions(logger, filesHttp);
  const filesProxy = createFilesProxy(config.FILES_HTTP_URL, filesHttp);
  let stopFilesHttpProbe = () => {};
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
  const keyUses = new KeyUseRecorder(membership, logger, config.KEY_USE_FLUSH_SECONDS * 1000);
  const authenticator = new ApiKeyAuthenticator(
    membership,
    caches.decisions,
    config.AUTH_CACHE_TTL_SECONDS,
    caches.epoch,
    keyUses,
  );
  const access = new ProjectAccessResolver(
    membership,
    caches.decisions,
    config.ACCESS_CACHE_TTL_SECONDS,
    caches.epoch,
  );
  const feed = createChangeFeed(config, membership, logger, metrics);
  const readiness = createReadiness();
  const stopObservingRedis = observeRedis(redis, caches.pending, metrics);
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
      stream: feed && {
        hub: () => feed.hub(),
        cacheEpoch: caches.epoch,
        heartbeatMs: config.STREAM_HEARTBEAT_MS,
        accessRecheckMs: config.STREAM_ACCESS_RECHECK_MS,
        maxStreamsPerKey: config.STREAM_MAX_PER_KEY,
        longPollMaxWaitMs: STREAM_ROUTE_DEFAULTS.longPollMaxWaitMs,
      },
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
      for (const u of upstreams) u.start();
      stopFilesHttpProbe = probeFilesHttp(config.FILES_HTTP_URL, filesHttp, probe);
      // Redis is a cache: the gateway starts (and serves) without it; flowboard_dependency_up tells. It waits a
      // moment for the connection, though, so the first requests already share the replicas' rate-limit
      // counters and caches instead of counting in this process's memory.
      const connected = redis
        .connect()
        .catch((err: Error) => logger.warn({ err: { message: err.message } }, 'redis not reachable yet'));
      await Promise.race([
        connected,
        new Promise((resolve) => setTimeout(resolve, REDIS_CONNECT_GRACE_MS).unref()),
      ]);
      // In the background: the API serves at once, the change stream once its feed has caught up (503 before).
      feed?.start();
      keyUses.start();
      const port = await listen(server, config.PORT, config.HOST);
      readiness.start();
      logger.info({ port }, 'gateway listening');
      return port;
    },
    async stop() {
      readiness.stop();
      // Ends the open streams first (each is told its position, and resumes on another replica): an SSE response
      // never ends by itself, so the drain would wait for them forever.
      await feed?.stop();
      await drainServer(server, KEEP_ALIVE_DRAIN_MS);
      await keyUses.stop();
      stopFilesHttpProbe();
      stopObservingRedis();
      for (const u of upstreams) u.close();
      redis.disconnect();
      await metricsServer.stop();
    },
  };
}

/** How long start() waits for Redis before serving without it. */
const REDIS_CONNECT_GRACE_MS = 2_000;

/**
 * Redis as a dependency on the metrics port (`flowboard_dependency_up{dependency="redis"}`: the connection is
 * ready), and the invalidations it missed made again when it is back: on every reconnection, and every second
 * while any wait (one that failed on a connection that never dropped).
 */
function observeRedis(redis: Redis, pending: PendingInvalidations, metrics: MetricsRegistry): () => void {
  const breaker = new Breaker({ name: 'redis' }); // never opened: the gauges' shape, as the upstreams'
  const refresh = observeDependency(metrics, breaker, () => redis.status === 'ready');
  const flush = () => {
    if (redis.status === 'ready' && pending.size > 0) void pending.flush();
  };
  redis.on('ready', () => {
    flush();
    refresh();
  });
  redis.on('close', refresh);
  redis.on('reconnecting', refresh);
  const timer = setInterval(flush, 1_000).unref();
  return () => clearInterval(timer);
}
