import { ConfigResourceTypes, ConfigSource, Kafka, logLevel } from 'kafkajs';
import { ConfigError, type Logger } from '@flowboard/service-kit';
import { fixKafkajsIdleLoop } from './kafkajs-idle-fix';

/** KAFKA_SASL_MECHANISM: how clients authenticate to the brokers; `none` sends no SASL handshake. */
export const KAFKA_SASL_MECHANISMS = ['none', 'scram-sha-256', 'scram-sha-512', 'plain'] as const;
export type KafkaSaslMechanism = (typeof KAFKA_SASL_MECHANISMS)[number];
/** One object type per mechanism, as kafkajs declares them. */
export type KafkaSasl = {
  [M in Exclude<KafkaSaslMechanism, 'none'>]: { mechanism: M; username: string; password: string };
}[Exclude<KafkaSaslMechanism, 'none'>];

/** How a client reaches the brokers: TLS, SASL (both optional; neither is plaintext, as before). */
export interface KafkaSecurity {
  /**
   * TLS to the brokers. The certificate is verified against Node's trust store (its CAs plus NODE_EXTRA_CA_CERTS,
   * which is how a private CA is added: kafkajs uses tls.connect's defaults) and the broker's address.
   */
  tls?: boolean;
  /** SASL authentication; SCRAM never sends the password, PLAIN does (use it over TLS only). */
  sasl?: KafkaSasl;
}

/** A service's Kafka security settings (KAFKA_TLS, KAFKA_SASL_*): the same variables in every service using Kafka. */
export function kafkaSecurity(config: {
  KAFKA_TLS: boolean;
  KAFKA_SASL_MECHANISM: KafkaSaslMechanism;
  KAFKA_SASL_USERNAME?: string;
  KAFKA_SASL_PASSWORD?: string;
}): KafkaSecurity {
  const mechanism = config.KAFKA_SASL_MECHANISM;
  // Unset (a config built without the variables, as before they existed) is none too.
  if (!mechanism || mechanism === 'none') return { tls: config.KAFKA_TLS === true };
  // Checked here rather than in each schema: a schema-level refine would turn the services' zod objects into
  // effects (no more .pick for the migration loaders). Same message shape as loadConfig's.
  const problems = (['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'] as const)
    .filter((name) => !config[name])
    .map((name) => `${name}: required when KAFKA_SASL_MECHANISM is ${mechanism}`);
  if (problems.length) throw new ConfigError(problems);
  return {
    tls: config.KAFKA_TLS === true,
    sasl: {
      mechanism,
      username: config.KAFKA_SASL_USERNAME!,
      password: config.KAFKA_SASL_PASSWORD!,
    } as KafkaSasl,
  };
}

export function createKafka(
  options: { brokers: string[]; clientId: string; logger: Logger } & KafkaSecurity,
): Kafka {
  const log = options.logger.child({ component: 'kafka' });
  if (!fixKafkajsIdleLoop())
    log.warn('kafkajs is not 2.2.4: its idle timer loop is not patched (kafkajs-idle-fix.ts)');
  return new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    ssl: options.tls === true,
    sasl: options.sasl,
    // Back-off capped at 5 s (kafkajs's default cap is 30 s): after a broker restart, producers and consumers
    // reconnect within seconds instead of sleeping through half a minute of a working broker.
    retry: { initialRetryTime: 300, retries: 8, maxRetryTime: 5_000 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry) => {
      const { message, ...extra } = entry.log;
      if (entry.level <= logLevel.ERROR) log.error(extra, message);
      else log.warn(extra, message);
    },
  });
}

/**
 * How a service makes the topics it needs (its KAFKA_TOPIC_PARTITIONS, KAFKA_TOPIC_REPLICATION and
 * KAFKA_CREATE_TOPICS). Every field optional: the defaults are what services did before they were settings.
 */
export interface TopicSettings {
  /** Partitions of a topic the service creates (default 3): a consumer group uses at most that many replicas. */
  partitions?: number;
  /** Replication factor of a topic the service creates; -1 (default): the broker's default.replication.factor. */
  replicationFactor?: number;
  /**
   * false: never create a topic (the operator pre-creates them: docs/operations.md "Kafka topics"); a topic that
   * does not exist is then an error naming it. Default true.
   */
  create?: boolean;
}

export const DEFAULT_TOPIC_PARTITIONS = 3;
/** kafkajs' and Kafka's "the broker's default.replication.factor". */
export const BROKER_DEFAULT_REPLICATION = -1;

/** The topic settings from a service's configuration (the same three variables in every service using Kafka). */
export function topicSettings(config: {
  KAFKA_TOPIC_PARTITIONS: number;
  KAFKA_TOPIC_REPLICATION: number;
  KAFKA_CREATE_TOPICS: boolean;
}): Required<TopicSettings> {
  return {
    partitions: config.KAFKA_TOPIC_PARTITIONS,
    replicationFactor: config.KAFKA_TOPIC_REPLICATION,
    create: config.KAFKA_CREATE_TOPICS,
  };
}

/** Topics a service needs that do not exist while it may not create them (KAFKA_CREATE_TOPICS=false). */
export class MissingTopicsError extends Error {
  constructor(readonly topics: string[]) {
    const one = topics.length === 1;
    super(
      `Kafka topic${one ? '' : 's'} ${topics.join(', ')} ${one ? 'does' : 'do'} not exist and KAFKA_CREATE_TOPICS is ` +
        `false: create ${one ? 'it' : 'them'} (docs/operations.md, "Kafka topics"), or let the services create topics`,
    );
    this.name = 'MissingTopicsError';
  }
}

export interface TopicPlan {
  /** To create now (missing, and creating is allowed). */
  create: string[];
  /** Missing, and creating is not allowed: an error. */
  missing: string[];
  /** Existing with fewer partitions than configured: consumers beyond that count idle. */
  fewerPartitions: Array<{ topic: string; partitions: number }>;
}

/** What ensureTopics does with the topics a service needs, given those that exist (name → partition count). */
export function planTopics(
  wanted: string[],
  existing: ReadonlyMap<string, number>,
  settings: TopicSettings = {},
): TopicPlan {
  const { partitions = DEFAULT_TOPIC_PARTITIONS, create = true } = settings;
  const absent = [...new Set(wanted)].filter((t) => !existing.has(t));
  const fewerPartitions = [...new Set(wanted)]
    .filter((t) => existing.has(t) && existing.get(t)! < partitions)
    .map((topic) => ({ topic, partitions: existing.get(topic)! }));
  return create
    ? { create: absent, missing: [], fewerPartitions }
    : { create: [], missing: absent, fewerPartitions };
}

/**
 * Creates the topics that do not exist yet (idempotent), with the settings' partitions and replication; run by
 * consumers at start and by the outbox relays' publisher before a topic's first publish. With `create: false` it
 * creates nothing and throws MissingTopicsError naming the topics that are not there (rather than leaving the
 * client retrying "This server does not host this topic-partition"). An existing topic with fewer partitions than
 * configured is left as it is (adding partitions moves keys to other partitions, so their order is only kept
 * from then on: the operator's call), with a warning when a logger is given.
 */
export async function ensureTopics(
  kafka: Kafka,
  topics: string[],
  options: TopicSettings & { logger?: Logger } = {},
): Promise<void> {
  const { partitions = DEFAULT_TOPIC_PARTITIONS, replicationFactor = BROKER_DEFAULT_REPLICATION } = options;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const names = new Set(await admin.listTopics());
    const present = topics.filter((t) => names.has(t));
    const existing = new Map<string, number>(present.map((t) => [t, partitions]));
    if (present.length) {
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics: present });
      for (const t of metadata) if (existing.has(t.name)) existing.set(t.name, t.partitions.length);
    }
    const plan = planTopics(topics, existing, options);
    for (const { topic, partitions: has } of plan.fewerPartitions) {
      options.logger?.warn(
        { topic, partitions: has, configured: partitions },
        'topic has fewer partitions than KAFKA_TOPIC_PARTITIONS: consumers beyond its partitions stay idle (docs/operations.md, "Kafka topics")',
      );
    }
    if (plan.missing.length) throw new MissingTopicsError(plan.missing);
    if (plan.create.length) {
      await admin.createTopics({
        topics: plan.create.map((topic) => ({ topic, numPartitions: partitions, replicationFactor })),
        waitForLeaders: true,
      });
    }
  } finally {
    await admin.disconnect();
  }
}

/**
 * Sets a topic's `retention.ms` when it is not `retentionMs` already; answers what it was before (undefined: it was
 * already so). Kafka's AlterConfigs (what kafkajs speaks; it has no incremental form) replaces a topic's whole set
 * of overrides, so the other overrides the topic has are sent along unchanged, or they would fall back to the
 * broker's defaults. A missing topic throws.
 */
export async function ensureTopicRetention(
  kafka: Kafka,
  topic: string,
  retentionMs: number,
): Promise<{ before: string } | undefined> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const described = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
      includeSynonyms: false,
    });
    const entries = described.resources[0]?.configEntries ?? [];
    const before = entries.find((e) => e.configName === 'retention.ms')?.configValue ?? '';
    if (before === String(retentionMs)) return undefined;
    const overrides = entries
      .filter(
        (e) =>
          e.configSource === ConfigSource.TOPIC_CONFIG && e.configName !== 'retention.ms' && !e.isSensitive,
      )
      .map((e) => ({ name: e.configName, value: e.configValue }));
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: topic,
          configEntries: [...overrides, { name: 'retention.ms', value: String(retentionMs) }],
        },
      ],
    });
    return { before };
  } finally {
    await admin.disconnect();
  }
}
