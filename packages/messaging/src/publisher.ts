import { Partitioners, type Kafka, type Producer } from 'kafkajs';

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
