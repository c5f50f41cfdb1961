import { env, loadConfig } from '@flowboard/service-kit';
import { z } from 'zod';

const schemaName = () => z.string().regex(/^[a-z_][a-z0-9_]*$/, 'must be a lowercase SQL identifier');

/** Every environment variable the files service reads. */
export const configSchema = z.object({
  GRPC_PORT: env.port(50053),
  /** Internal HTTP for byte streams; reachable only from the gateway. */
  HTTP_PORT: env.port(50063),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Prometheus `/metrics` (HTTP, bound to HOST); not the internal HTTP port, which only the gateway may reach. */
  METRICS_PORT: env.port(9104),
  DATABASE_URL: env.url(),
  DB_SCHEMA: schemaName().default('files'),
  /** Connections per process: the chart checks replicas × this against the server's (operations.md). */
  DATABASE_POOL_SIZE: env.poolSize(),
  S3_ENDPOINT: env.url().default('http://127.0.0.1:29000'),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY: z.string().min(1),
  S3_SECRET_KEY: z.string().min(1),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid S3 bucket name')
    .default('flowboard-attachments'),
  /** Largest accepted file, per part (413 above it). Default 100 MiB. */
  MAX_FILE_BYTES: z.coerce.number().int().positive().default(104_857_600),
  /** Deletion events (project, story) are consumed from here; attachment changes are published to it. */
  KAFKA_BROKERS: env.list(),
  KAFKA_GROUP_ID: z.string().min(1).default('files'),
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
  /** An upload's storage reservation lapses this long after its last renewal (uploads renew every third). */
  RESERVATION_TTL_SECONDS: z.coerce.number().int().min(3).default(120),
  /** How often the sweeper runs (expired reservations, abandoned multipart uploads, objects without a row); 0 = never. */
  SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(300),
  /** Objects and multipart uploads this old without a committed row are orphans; must exceed the longest upload. */
  SWEEP_ORPHAN_AGE_SECONDS: z.coerce.number().int().min(60).default(3600),
  LOG_LEVEL: env.logLevel(),
});

export type FilesConfig = z.infer<typeof configSchema>;

export const loadFilesConfig = (source: NodeJS.ProcessEnv = process.env): FilesConfig =>
  loadConfig(configSchema, source);

/** The migration CLI needs only the database. */
const migrationSchema = configSchema.pick({ DATABASE_URL: true, DB_SCHEMA: true });
export const loadMigrationConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(migrationSchema, source);
