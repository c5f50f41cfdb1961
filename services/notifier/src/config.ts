import { z } from 'zod';
import { env } from '@flowboard/service-kit';

/** The default consumer group (`KAFKA_GROUP_ID`). */
export const CONSUMER_GROUP = 'notifier';

/** Every environment variable the notifier reads, parsed once at start-up. */
export const configSchema = z.object({
  HTTP_PORT: env.port(8081),
  HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  /** Prometheus `/metrics` (bound to HTTP_HOST), a port of its own like every service's. */
  METRICS_PORT: env.port(9105),
  KAFKA_BROKERS: env.list(),
  /** The consumer group; its dead letters go to `<group>-dlq`. */
  KAFKA_GROUP_ID: z.string().min(1).default(CONSUMER_GROUP),
  /** The topics it creates when missing, or not at all (docs/operations.md, "Kafka topics"). */
  KAFKA_TOPIC_PARTITIONS: env.topicPartitions(),
  KAFKA_TOPIC_REPLICATION: env.topicReplication(),
  KAFKA_CREATE_TOPICS: env.bool(true),
  /** TLS and SASL to the brokers (docs/operations.md, "Kafka TLS and SASL"); the password is a secret. */
  KAFKA_TLS: env.bool(false),
  KAFKA_SASL_MECHANISM: env.kafkaSaslMechanism(),
  KAFKA_SASL_USERNAME: env.kafkaSaslCredential(),
  KAFKA_SASL_PASSWORD: env.kafkaSaslCredential(),
  REDIS_URL: env.url(),
  /** `smtp://host:port`, optionally `smtp://user:pass@host:port` (percent-encoded). Plain SMTP, no TLS. */
  SMTP_URL: env.url().refine((url) => /^smtp:\/\//i.test(url), 'must be an smtp:// URL'),
  MAIL_FROM: z.string().min(3).default('Flowboard <no-reply@flowboard.local>'),
  /** Where the API is reachable for the invitee; the e-mail shows the accept call under it. */
  PUBLIC_BASE_URL: env.url().default('http://127.0.0.1:8080'),
  /** How long a sent invite's event id is remembered, so a redelivery sends nothing (default 7 days). */
  DEDUPE_TTL_SECONDS: z.coerce.number().int().min(60).default(604_800),
  /**
   * How long a send in progress holds its claim. Longer than any send can take (the SMTP timeouts add up to under
   * a minute); a notifier that dies mid-send delays that one e-mail by this much, never duplicates it.
   */
  DEDUPE_PENDING_TTL_SECONDS: z.coerce.number().int().min(5).default(120),
  /** A failed send (mail server down, 4xx) pauses its partition: first wait, doubling up to the longest. */
  RETRY_INITIAL_MS: z.coerce.number().int().min(10).default(1_000),
  RETRY_MAX_MS: z.coerce.number().int().min(10).default(60_000),
  LOG_LEVEL: env.logLevel(),
});

export type NotifierConfig = z.infer<typeof configSchema>;
