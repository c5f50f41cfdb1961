import type { Kafka } from 'kafkajs';
import { uniqueSuffix, waitFor } from './env';
import { assertMatchesTopicSchema, hasTopicSchema } from './event-schemas';

/**
 * A topic read from the beginning by a consumer group of its own, every message kept. Messages of a topic with a
 * JSON Schema (`@flowboard/events/schemas`) are checked against it as they are returned.
 */
export interface TopicTail {
  /** The values of the messages with this key, in topic order, once at least `count` have arrived. */
  values(key: string, count: number, timeoutMs?: number): Promise<string[]>;
  stop(): Promise<void>;
}

/** Starts reading `topic` (which must exist) from its beginning; `stop` it when done. */
export async function tailTopic(kafka: Kafka, topic: string, groupPrefix: string): Promise<TopicTail> {
  const seen: Array<{ key: string; value: string }> = [];
  const consumer = kafka.consumer({ groupId: `${groupPrefix}-${uniqueSuffix()}` });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) =>
      void seen.push({ key: message.key?.toString() ?? '', value: message.value?.toString() ?? '' }),
  });
  return {
    values: (key, count, timeoutMs = 20_000) =>
      waitFor(
        async () => {
          const ours = seen.filter((m) => m.key === key);
          if (ours.length < count) return undefined;
          if (hasTopicSchema(topic)) for (const m of ours) assertMatchesTopicSchema(topic, m.value);
          return ours.map((m) => m.value);
        },
        timeoutMs,
        `${count} messages with key ${key} on ${topic}`,
      ),
    stop: () => consumer.disconnect(),
  };
}
