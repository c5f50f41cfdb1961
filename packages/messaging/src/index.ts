/**
 * The seam over the Kafka client. Only this package imports kafkajs, so a switch to another client
 * (e.g. @confluentinc/kafka-javascript, which mimics this API) touches one folder.
 */
import { Kafka, Partitioners, logLevel, type Consumer, type KafkaMessage, type Producer } from 'kafkajs';
import type { Logger } from '@flowboard/service-kit';

export interface OutgoingMessage {
  /** Messages with the same key stay ordered (one partition). */
  key: string;
  value: string;
  headers?: Record<string, string>;
}

/** What the outbox relay needs: publish a batch, durably (all in-sync replicas), or throw. */
export interface Publisher {
  publish(topic: string, messages: OutgoingMessage[]): Promise<void>;
}

export interface IncomingMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer | null;
  headers: Record<string, string>;
}

/** Thrown by a handler for a message that can never succeed; the consumer dead-letters it instead of retrying. */
export class PermanentMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentMessageError';
  }
}

export function createKafka(options: { brokers: string[]; clientId: string; logger: Logger }): Kafka {
  const log = options.logger.child({ component: 'kafka' });
  return new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    retry: { initialRetryTime: 300, retries: 8 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry) => {
      const { message, ...extra } = entry.log;
      if (entry.level <= logLevel.ERROR) log.error(extra, message);
      else log.warn(extra, message);
    },
  });
}

/** Creates topics that do not exist yet (idempotent); run at start by producers and consumers. */
export async function ensureTopics(kafka: Kafka, topics: string[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length) {
      await admin.createTopics({
        topics: missing.map((topic) => ({ topic, numPartitions: 3 })),
        waitForLeaders: true,
      });
    }
  } finally {
    await admin.disconnect();
  }
}

export class KafkaPublisher implements Publisher {
  private readonly producer: Producer;
  private connected: Promise<void> | undefined;

  constructor(kafka: Kafka) {
    // The default (murmur2, Java-compatible) partitioner, named explicitly: same key → same partition as
    // any other Kafka client would choose, and no start-up warning about kafkajs' old default.
    this.producer = kafka.producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      // Fail a batch fast: the outbox relay retries it with its own back-off, so kafkajs' long internal retries
      // (tens of seconds) would only delay delivery after an outage.
      retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 2_000 },
    });
  }

  async publish(topic: string, messages: OutgoingMessage[]): Promise<void> {
    this.connected ??= this.producer.connect().catch((err: unknown) => {
      this.connected = undefined; // try again on the next batch
      throw err;
    });
    await this.connected;
    await this.producer.send({ topic, acks: -1, messages });
  }

  async disconnect(): Promise<void> {
    if (this.connected) await this.producer.disconnect();
    this.connected = undefined;
  }
}

export interface EventConsumerOptions {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  logger: Logger;
  /** Throw to retry (the partition waits, nothing is skipped); throw PermanentMessageError to dead-letter. */
  handle(message: IncomingMessage): Promise<void>;
}

/**
 * A consumer group member that commits only after the handler succeeded (at-least-once), sends poison
 * messages to `<group>-dlq` with the reason in a header, and reports readiness from group membership.
 */
export class EventConsumer {
  readonly deadLetterTopic: string;
  private readonly consumer: Consumer;
  private readonly dlq: Producer;
  private ready = false;

  constructor(private readonly options: EventConsumerOptions) {
    this.deadLetterTopic = `${options.groupId}-dlq`;
    this.consumer = options.kafka.consumer({ groupId: options.groupId, retry: { retries: 10 } });
    this.dlq = options.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    const { GROUP_JOIN, CRASH, DISCONNECT, STOP } = this.consumer.events;
    this.consumer.on(GROUP_JOIN, () => (this.ready = true));
    this.consumer.on(CRASH, (e) => {
      this.ready = false;
      options.logger.error({ err: e.payload.error, restart: e.payload.restart }, 'consumer crashed');
    });
    this.consumer.on(DISCONNECT, () => (this.ready = false));
    this.consumer.on(STOP, () => (this.ready = false));
  }

  isReady(): boolean {
    return this.ready;
  }

  async start(): Promise<void> {
    await ensureTopics(this.options.kafka, [...this.options.topics, this.deadLetterTopic]);
    await this.dlq.connect();
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: this.options.topics, fromBeginning: true });
    await this.consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        const incoming = toIncoming(topic, partition, message);
        try {
          await this.options.handle(incoming);
        } catch (err) {
          if (!(err instanceof PermanentMessageError)) throw err;
          this.options.logger.warn(
            { topic, partition, offset: message.offset, reason: err.message },
            'dead-lettering',
          );
          await this.dlq.send({
            topic: this.deadLetterTopic,
            acks: -1,
            messages: [
              {
                key: message.key,
                value: message.value,
                headers: {
                  ...message.headers,
                  'x-dlq-reason': err.message,
                  'x-dlq-source': `${topic}/${partition}/${message.offset}`,
                },
              },
            ],
          });
        }
      },
    });
  }

  async stop(): Promise<void> {
    this.ready = false;
    await this.consumer.disconnect();
    await this.dlq.disconnect();
  }
}

function toIncoming(topic: string, partition: number, message: KafkaMessage): IncomingMessage {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(message.headers ?? {})) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? String(v[0]) : String(v);
  }
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString() ?? null,
    value: message.value,
    headers,
  };
}
