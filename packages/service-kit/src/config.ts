import { z } from 'zod';

/** Thrown when the environment does not satisfy a service's config schema; lists every problem at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once, at start-up, against a service's zod schema.
 * Every missing or invalid variable is reported together, so a bad deployment fails with the whole list.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
  );
}

/** Common building blocks for config schemas. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  url: () => z.string().url(),
  /** host:port of a gRPC peer (no scheme). */
  grpcAddress: () => z.string().regex(/^[^\s/]+:\d+$/, 'must be host:port'),
  /** "a:1,b:2" → ["a:1", "b:2"] */
  list: () =>
    z
      .string()
      .min(1)
      .transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      ),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * DATABASE_POOL_SIZE: PostgreSQL connections per process (pg-kit's pool `max`), 1-100. Replicas × this must fit
   * the server's max_connections; the chart checks it (docs/operations.md, "Connection budget").
   */
  poolSize: () => z.coerce.number().int().min(1).max(100).default(10),
  /**
   * KAFKA_TOPIC_PARTITIONS: the partitions of the topics a service creates when missing (a consumer group uses at
   * most that many replicas; docs/operations.md, "Kafka topics").
   */
  topicPartitions: () => z.coerce.number().int().min(1).max(1000).default(3),
  /** KAFKA_TOPIC_REPLICATION: their replication factor; -1 is the broker's default.replication.factor. */
  topicReplication: () =>
    z.coerce
      .number()
      .int()
      .min(-1)
      .refine((n) => n !== 0, 'must be -1 (the broker default) or at least 1')
      .default(-1),
  /**
   * KAFKA_SASL_MECHANISM: how a Kafka client authenticates (docs/operations.md, "Kafka TLS and SASL"): none (default),
   * scram-sha-256, scram-sha-512 or plain. With one, @flowboard/messaging requires the two credentials below. TLS is
   * KAFKA_TLS, a plain `bool(false)`: verified against Node's CAs plus NODE_EXTRA_CA_CERTS.
   */
  kafkaSaslMechanism: () => z.enum(['none', 'scram-sha-256', 'scram-sha-512', 'plain']).default('none'),
  /** KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD: required with a mechanism; empty counts as unset (a chart default). */
  kafkaSaslCredential: () =>
    z
      .string()
      .optional()
      .transform((v) => v || undefined),
};

/** For entry points: parse, or print every problem (no stack trace) and exit 1. */
export function loadConfigOrExit<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  try {
    return loadConfig(schema, env);
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  }
}
