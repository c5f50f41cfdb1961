import { env, loadConfig } from '@flowboard/service-kit';
import { z } from 'zod';
import { parseAllowList } from './domain/address-policy';
import { parseSealingKey } from './domain/secret-box';

const schemaName = () => z.string().regex(/^[a-z_][a-z0-9_]*$/, 'must be a lowercase SQL identifier');
const ms = (fallback: number, min = 1) => z.coerce.number().int().min(min).default(fallback);

/** Every environment variable the webhooks service reads. */
export const configSchema = z
  .object({
    GRPC_PORT: env.port(50054),
    HOST: z.string().min(1).default('127.0.0.1'),
    /** Prometheus `/metrics` (HTTP, bound to HOST). */
    METRICS_PORT: env.port(9106),
    DATABASE_URL: env.url(),
    DB_SCHEMA: schemaName().default('webhooks'),
    /** Connections per process: the chart checks replicas × this against the server's (operations.md). */
    DATABASE_POOL_SIZE: env.poolSize(),
    /** membership, for the names a payload shows (project, users): one call per event rendered. */
    MEMBERSHIP_ADDR: env.grpcAddress(),
    /** Deadline of each call to membership. */
    GRPC_DEADLINE_MS: ms(5_000),
    /** Change events are consumed from here (flowboard.resource-changed.v1, membership.project-deleted.v1). */
    KAFKA_BROKERS: env.list(),
    /** Its own group: webhook traffic never holds back another consumer. Dead letters go to `<group>-dlq`. */
    KAFKA_GROUP_ID: z.string().min(1).default('webhooks'),
    /**
     * How long after its last fetch began it fetches again, gathering events (FetchWait in @flowboard/messaging):
     * deliveries start up to this much later, and a trickle of writes costs a fetch and a look-ahead query per batch,
     * not per event. 0: every event is fetched on its own, as soon as it is there.
     */
    KAFKA_FETCH_WAIT_MS: z.coerce.number().int().min(0).max(1_000).default(50),
    /** The topics it creates when missing, or not at all (docs/operations.md, "Kafka topics"). */
    KAFKA_TOPIC_PARTITIONS: env.topicPartitions(),
    KAFKA_TOPIC_REPLICATION: env.topicReplication(),
    KAFKA_CREATE_TOPICS: env.bool(true),
    /** TLS and SASL to the brokers (docs/operations.md, "Kafka TLS and SASL"); the password is a secret. */
    KAFKA_TLS: env.bool(false),
    KAFKA_SASL_MECHANISM: env.kafkaSaslMechanism(),
    KAFKA_SASL_USERNAME: env.kafkaSaslCredential(),
    KAFKA_SASL_PASSWORD: env.kafkaSaslCredential(),
    /**
     * Seals the webhooks' signing secrets at rest (AES-256-GCM): base64 of 32 random bytes
     * (`openssl rand -base64 32`). Losing it makes every stored secret unusable.
     */
    SECRET_ENCRYPTION_KEY: z.string().transform((value, ctx) => {
      try {
        return parseSealingKey(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
    /**
     * Host names, addresses and CIDR ranges webhooks may reach although they are private, loopback... (an
     * operator's internal receivers; tests' loopback receiver). Empty: public addresses only.
     */
    WEBHOOK_ALLOWED_HOSTS: z
      .string()
      .default('')
      .transform((value, ctx) => {
        try {
          return parseAllowList(value.split(',').map((entry) => entry.trim()));
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
          return z.NEVER;
        }
      }),
    /** At most this many webhooks per project (each event fans out to all of them). */
    MAX_WEBHOOKS_PER_PROJECT: z.coerce.number().int().min(1).default(20),
    /** One attempt, DNS to the last byte read, ends after this long. */
    DELIVERY_TIMEOUT_MS: ms(10_000, 100),
    /** At most this much of a receiver's answer is read (the stored error text is shorter still). */
    DELIVERY_MAX_RESPONSE_BYTES: z.coerce.number().int().min(0).default(65_536),
    /**
     * A claimed attempt's lease is the timeout plus this margin; a dispatcher that died mid-attempt leaves its
     * delivery to another replica after that long.
     */
    DELIVERY_LEASE_MARGIN_MS: ms(15_000, 100),
    /** Retries: full jitter up to RETRY_INITIAL_MS doubling per attempt, capped at RETRY_MAX_MS… */
    RETRY_INITIAL_MS: ms(5_000),
    RETRY_MAX_MS: ms(3_600_000),
    /** …until this long after the first attempt; then the delivery fails and its webhook is disabled. */
    RETRY_GIVE_UP_AFTER_MS: ms(86_400_000),
    /** Attempts in flight per replica. */
    DISPATCH_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
    /** How often an idle dispatcher looks for due deliveries (ingestion here wakes it at once). */
    DISPATCH_INTERVAL_MS: ms(1_000, 10),
    /**
     * On shutdown, attempts in flight get this long to finish; the rest are abandoned unrecorded, and their leases
     * hand them to another replica (as if this one had died).
     */
    DISPATCH_DRAIN_MS: ms(5_000, 0),
    /** Finished deliveries and their events are kept this long (the delivery log, redelivery). */
    RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
    /** How often old events are swept; 0 = never. */
    SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(3_600),
    LOG_LEVEL: env.logLevel(),
  })
  .refine((c) => c.RETRY_MAX_MS >= c.RETRY_INITIAL_MS, {
    message: 'must be at least RETRY_INITIAL_MS',
    path: ['RETRY_MAX_MS'],
  });

export type WebhooksConfig = z.infer<typeof configSchema>;

export const loadWebhooksConfig = (source: NodeJS.ProcessEnv = process.env): WebhooksConfig =>
  loadConfig(configSchema, source);

/** The migration CLI needs only the database. */
const migrationSchema = z.object({ DATABASE_URL: env.url(), DB_SCHEMA: schemaName().default('webhooks') });
export const loadMigrationConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(migrationSchema, source);
