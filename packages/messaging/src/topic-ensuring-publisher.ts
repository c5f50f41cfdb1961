import type { Kafka } from 'kafkajs';
import type { Logger } from '@flowboard/service-kit';
import { ensureTopics, type TopicSettings } from './kafka';
import { KafkaPublisher, type OutgoingMessage, type Publisher } from './publisher';

/**
 * Makes sure a topic exists before publishing to it, lazily: on the first publish to the topic, and again
 * after any failed publish (the topic may have been deleted, or Kafka replaced). Nothing touches Kafka at
 * start-up, so the service starts and serves while Kafka is down; the outbox keeps the events meanwhile.
 * The wrapped producer is created with auto topic creation off, so topics get our partition count.
 */
export class TopicEnsuringPublisher implements Publisher {
  private readonly ensured = new Set<string>();
  private closed = false;
  private readonly pending = new Set<(err: Error) => void>();

  constructor(
    private readonly inner: Publisher & { disconnect(): Promise<void> },
    private readonly ensureTopics: (topics: string[]) => Promise<void>,
  ) {}

  async publish(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (this.closed) throw new Error('publisher closed');
    // A publish against an unreachable broker retries for a long time; close() must be able to end it.
    let abort!: (err: Error) => void;
    const aborted = new Promise<never>((_resolve, reject) => (abort = reject));
    this.pending.add(abort);
    try {
      await Promise.race([this.send(topic, messages), aborted]);
    } finally {
      this.pending.delete(abort);
    }
  }

  /**
   * Fails every publish in flight and refuses new ones, so the outbox relay finishes its pass (the batch stays
   * unpublished, to be sent after a restart) and releases its database connection. Used at shutdown.
   */
  close(): void {
    this.closed = true;
    for (const abort of this.pending) abort(new Error('publisher closed'));
  }

  private async send(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (!this.ensured.has(topic)) {
      await this.ensureTopics([topic]);
      this.ensured.add(topic);
    }
    try {
      await this.inner.publish(topic, messages);
    } catch (err) {
      this.ensured.delete(topic);
      throw err;
    }
  }

  disconnect(): Promise<void> {
    return this.inner.disconnect();
  }
}

/**
 * The outbox relays' publisher: Kafka is never needed to start or to answer a call, so topics are ensured on the
 * first publish to each (with the settings' partitions and replication), not at start-up. With `create: false` a
 * missing topic fails that publish with MissingTopicsError naming it (the relay logs it and retries).
 */
export const createLazyTopicPublisher = (
  kafka: Kafka,
  settings: TopicSettings & { logger?: Logger } = {},
): TopicEnsuringPublisher =>
  new TopicEnsuringPublisher(new KafkaPublisher(kafka), (topics) => ensureTopics(kafka, topics, settings));
