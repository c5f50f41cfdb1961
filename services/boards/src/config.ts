import { env, loadConfig } from '@flowboard/service-kit';
import { z } from 'zod';

const schemaName = () => z.string().regex(/^[a-z_][a-z0-9_]*$/, 'must be a lowercase SQL identifier');

/** Every environment variable the boards service reads. */
export const configSchema = z.object({
  GRPC_PORT: env.port(50051),
  GRPC_HOST: z.string().min(1).default('127.0.0.1'),
  /** Prometheus `/metrics` (HTTP, bound to GRPC_HOST). */
  METRICS_PORT: env.port(9103),
  DATABASE_URL: env.url(),
  DB_SCHEMA: schemaName().default('boards'),
  /** Connections per process: the chart checks replicas × this against the server's (operations.md). */
  DATABASE_POOL_SIZE: env.poolSize(),
  /**
   * Publishes `boards.story-deleted.v1` and `flowboard.resource-changed.v1` (outbox relay) and consumes
   * `membership.project-deleted.v1`.
   */
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
  /** How often the outbox relay looks for unpublished events (it is also woken after each write with events). */
  OUTBOX_INTERVAL_MS: z.coerce.number().int().min(10).default(250),
  /** Published outbox events older than this are deleted (Kafka has them); checked every minute. */
  OUTBOX_RETENTION_MINUTES: z.coerce.number().int().min(0).default(60),
  /**
   * One board's waiting writes (creates, updates, moves) share a transaction up to this many stories written: one
   * lock and one commit for all. A write weighs the stories it writes, so a bulk write heavier than this runs alone.
   * 1 runs every write alone.
   */
  BOARD_BATCH_MAX: z.coerce.number().int().min(1).max(1000).default(32),
  LOG_LEVEL: env.logLevel(),
  // Project metrics (docs/compat.md §5.2): stories that entered Archive within this many days.
  METRICS_WINDOW_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
});

export type BoardsConfig = z.infer<typeof configSchema>;

export const loadBoardsConfig = (source: NodeJS.ProcessEnv = process.env): BoardsConfig =>
  loadConfig(configSchema, source);

/** The migration CLI needs only the database. */
const migrationSchema = configSchema.pick({ DATABASE_URL: true, DB_SCHEMA: true });
export const loadMigrationConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(migrationSchema, source);
