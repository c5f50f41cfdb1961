import { z } from 'zod';
import { env } from '@flowboard/service-kit';

/** Every environment variable the membership service reads, parsed once at start-up. */
export const configSchema = z.object({
  GRPC_PORT: env.port(50052),
  GRPC_HOST: z.string().min(1).default('127.0.0.1'),
  /** Prometheus `/metrics` (HTTP, bound to GRPC_HOST). */
  METRICS_PORT: env.port(9102),
  DATABASE_URL: env.url(),
  DB_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower-case SQL identifier')
    .default('membership'),
  /** Connections per process: the chart checks replicas × this against the server's (operations.md). */
  DATABASE_POOL_SIZE: env.poolSize(),
  KAFKA_BROKERS: env.list(),
  /** The topics it creates when missing, or not at all (docs/operations.md, "Kafka topics"). */
  KAFKA_TOPIC_PARTITIONS: env.topicPartitions(),
  KAFKA_TOPIC_REPLICATION: env.topicReplication(),
  KAFKA_CREATE_TOPICS: env.bool(true),
  /** TLS and SASL to the brokers (docs/operations.md, "Kafka TLS and SASL"); the password is a secret. */
  KAFKA_TLS: env.bool(false),
  KAFKA_SASL_MECHANISM: env.kafkaSaslMechanism(),
  KAFKA_SASL_USERNAME: env.kafkaSaslCredential(),
  KAFKA_SASL_PASSWORD: env.kafkaSaslCredential(),
  /** Sign-up (POST /api/v1/users) can be switched off; the RPC then answers NOT_FOUND. */
  SIGNUP_ENABLED: env.bool(true),
  INVITE_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(14),
  /** How often the outbox relay looks for unpublished events (it is also woken after each invite). */
  OUTBOX_INTERVAL_MS: z.coerce.number().int().min(10).default(250),
  /** Published outbox events older than this are deleted (Kafka has them); checked every minute. */
  OUTBOX_RETENTION_MINUTES: z.coerce.number().int().min(0).default(60),
  /**
   * Collaborators an account may have unless an operator set its own limit (docs/compat.md §5.7: off by
   * default). Unset or empty: no limit.
   */
  DEFAULT_COLLABORATOR_LIMIT: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  ),
  /** Attachment bytes an account may store unless an operator set its own limit; default 1 GiB. */
  DEFAULT_STORAGE_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .default(1024 ** 3),
  LOG_LEVEL: env.logLevel(),
});

export type MembershipConfig = z.infer<typeof configSchema>;

/** The subset the migration CLI needs. */
export const migrateConfigSchema = configSchema.pick({ DATABASE_URL: true, DB_SCHEMA: true });
