import { z } from 'zod';
import { env } from '@flowboard/service-kit';

const positiveInt = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

/** Every environment variable the gateway reads, parsed once at start-up. */
export const configSchema = z.object({
  PORT: env.port(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Prometheus `/metrics`, on its own listener (same HOST) so it is never on the public API port. */
  METRICS_PORT: env.port(9101),
  REDIS_URL: env.url(),
  MEMBERSHIP_ADDR: env.grpcAddress(),
  BOARDS_ADDR: env.grpcAddress(),
  FILES_ADDR: env.grpcAddress(),
  /** The webhooks service (project webhooks and their delivery log). */
  WEBHOOKS_ADDR: env.grpcAddress(),
  /** The files service's internal HTTP port (attachment streams), e.g. http://127.0.0.1:50063. */
  FILES_HTTP_URL: env.url(),
  GRPC_DEADLINE_MS: positiveInt(5000),
  /**
   * Failure isolation (docs/design.md, "Failure isolation"): each upstream (membership, boards, files' gRPC and
   * HTTP ports, webhooks) has a circuit breaker. This many consecutive calls that found it unreachable or silent
   * until their deadline open it: its operations then answer 503 with Retry-After at once.
   */
  DEPENDENCY_FAILURES_TO_OPEN: positiveInt(5),
  /** How long a circuit opened by failed calls refuses everything before one trial call may pass. */
  DEPENDENCY_OPEN_MS: positiveInt(5000),
  /** Each upstream is probed this often (grpc.health.v1 Check; files' HTTP port: any HTTP answer). */
  DEPENDENCY_PROBE_INTERVAL_MS: positiveInt(1000),
  /** A probe not answered (SERVING) within this fails. */
  DEPENDENCY_PROBE_TIMEOUT_MS: positiveInt(1000),
  /** This many failed probes in a row hold the circuit open until a probe succeeds again. */
  DEPENDENCY_PROBE_FAILURES_TO_OPEN: positiveInt(2),
  /**
   * A gRPC upstream's channel that has wanted a connection this long without one starts a fresh attempt: one can
   * get lost for minutes (a SYN sent to a replica that just went away) and grpc-js sets no limit of its own.
   */
  DEPENDENCY_CONNECT_TIMEOUT_MS: positiveInt(2000),
  /** A Redis command not answered within this fails (the request goes on without Redis). */
  REDIS_COMMAND_TIMEOUT_MS: positiveInt(500),
  /**
   * This many Redis commands in a row timing out mark Redis hung: the connection is dropped, so every command fails
   * at once (caches bypassed, rate limits per replica) while ioredis reconnects and checks it answers again.
   */
  REDIS_TIMEOUTS_TO_DOWN: positiveInt(2),
  /** Non-multipart request bodies above this size are refused with 413. */
  BODY_LIMIT_BYTES: positiveInt(1_048_576),
  AUTH_CACHE_TTL_SECONDS: positiveInt(60),
  /** How often each replica sends membership when keys were last used (so a key's last use shows this late). */
  KEY_USE_FLUSH_SECONDS: positiveInt(30),
  ACCESS_CACHE_TTL_SECONDS: positiveInt(30),
  /** User references shown in responses (creator, owner...); `PUT /me` drops its own at once. */
  USER_CACHE_TTL_SECONDS: positiveInt(300),
  /**
   * Rendered answers of board reads kept in each replica's memory, exact across replicas (every change through
   * the API advances the board's version in Redis first). Budget in MiB; 0 turns the cache off.
   */
  RESPONSE_CACHE_MB: z.coerce.number().int().min(0).default(64),
  /** How long a cached answer lives at most: the bound on staleness if a version advance is ever lost. */
  RESPONSE_CACHE_TTL_SECONDS: positiveInt(10),
  /** How long the answer of a request sent with an Idempotency-Key is kept for its retries. */
  IDEMPOTENCY_TTL_SECONDS: positiveInt(86_400),
  /**
   * How long a request with an Idempotency-Key holds its key without renewing it (it renews every third of this):
   * after a gateway dies mid-request, its key is free again this long after.
   */
  IDEMPOTENCY_LEASE_SECONDS: positiveInt(30),
  /** Rate limiting (docs/compat.md §3.3): on unless `false`; counters in Redis, fixed windows. */
  RATE_LIMIT_ENABLED: env.bool(true),
  /** Requests per API key per window. Generous: a busy script, not a person, reaches it. */
  RATE_LIMIT_POINTS: positiveInt(1200),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt(60),
  /** Unauthenticated requests (failed authentications, sign-ups) per client address per window. */
  RATE_LIMIT_ANONYMOUS_POINTS: positiveInt(600),
  /**
   * Which peers may set the client address with X-Forwarded-For (Express `trust proxy`): empty = none, a hop
   * count, or addresses/subnets/`loopback`/`uniquelocal`, comma-separated. Behind an ingress, its subnet.
   */
  TRUST_PROXY: z
    .string()
    .default('')
    .transform((v): boolean | number | string => (v.trim() === '' ? false : /^\d+$/.test(v) ? Number(v) : v)),
  /**
   * The operator's token for `/api/v1/admin/...` (sent as `Authorization: Bearer <token>`; API keys never work
   * there). Unset or empty: the admin endpoints answer 404. At least 32 characters: it guards every account.
   */
  OPERATOR_TOKEN: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.string().min(32, 'must be at least 32 characters').optional(),
  ),
  /**
   * The change stream (`GET /projects/{id}/events`, docs/design.md "The change stream"): Kafka's brokers, read for
   * `flowboard.resource-changed.v1`. Unset: the stream answers 503 and nothing else changes (the gateway needs
   * Kafka for nothing else).
   */
  KAFKA_BROKERS: env.list().optional(),
  KAFKA_TLS: env.bool(false),
  KAFKA_SASL_MECHANISM: env.kafkaSaslMechanism(),
  KAFKA_SASL_USERNAME: env.kafkaSaslCredential(),
  KAFKA_SASL_PASSWORD: env.kafkaSaslCredential(),
  /**
   * Each replica keeps the newest events of every partition in memory (read from Kafka at start, then as they come):
   * resumes within them never touch Kafka's history. At most this many events, and this many MiB, per partition.
   */
  STREAM_RING_EVENTS: positiveInt(20_000),
  STREAM_RING_MB: positiveInt(16),
  /** What one subscriber may have pending before it is closed as too slow (it resumes from its position). */
  STREAM_QUEUE_EVENTS: positiveInt(1_000),
  STREAM_QUEUE_KB: positiveInt(1_024),
  /** Resumes older than the ring read Kafka's history: at most this many such reads at once per replica. */
  STREAM_HISTORY_READS: positiveInt(4),
  /**
   * How long after its last fetch began the feed fetches again, gathering changes (FetchWait in @flowboard/messaging):
   * each change reaches subscribers up to this much later, and a trickle of writes costs a fetch per batch, not per
   * change (with the webhooks' wait, a move at one connection costs the stack 7.1–8.9 CPU ms, not 9.7–10.6:
   * docs/benchmarks.md). An idle feed makes one fetch per long poll. 0: every change is fetched on its own, at once.
   */
  STREAM_FETCH_WAIT_MS: z.coerce.number().int().min(0).max(1_000).default(25),
  /**
   * How far back a client can resume: the gateway sets the topic's `retention.ms` to this at start (older positions
   * answer 410). 0 leaves the topic's retention as the operator set it.
   */
  STREAM_RETENTION_HOURS: z.coerce.number().int().min(0).default(168),
  /** A comment line on an idle SSE connection this often, so proxies keep it open. */
  STREAM_HEARTBEAT_MS: positiveInt(15_000),
  /** An open stream checks its caller's access to the project again this often (a removed member is cut off). */
  STREAM_ACCESS_RECHECK_MS: positiveInt(5_000),
  /** Open streams (SSE, and long-polls while they wait) per API key per replica; beyond it, 429. */
  STREAM_MAX_PER_KEY: positiveInt(10),
  LOG_LEVEL: env.logLevel(),
});

export type GatewayConfig = z.infer<typeof configSchema>;
