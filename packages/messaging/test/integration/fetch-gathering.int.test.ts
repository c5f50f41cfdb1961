import { Partitioners, type Consumer } from 'kafkajs';
import { ensureTopics, EventConsumer, TopicTail } from '../../src';
import { kafka, logger, suffix, until } from './support';

// Against a real broker: a consumer with a FetchWait gathers a trickle of messages into a few batches, and when idle
// asks the broker once per long poll, not once per wait (a broker-side wait made an idle consumer fetch 1000/wait
// times a second).

/** The fetches a consumer made within `ms` from now. */
async function fetchesWithin(consumer: Consumer, ms: number): Promise<number> {
  let fetches = 0;
  const stopCounting = consumer.on(consumer.events.FETCH, () => void fetches++);
  await new Promise((r) => setTimeout(r, ms));
  stopCounting();
  return fetches;
}

/** The consumers created from now on through the shared client (the one each reader under test makes). */
function consumersMade(): { made: Consumer[]; restore: () => void } {
  const made: Consumer[] = [];
  const original = kafka.consumer.bind(kafka);
  const spy = jest.spyOn(kafka, 'consumer').mockImplementation((config) => {
    const consumer = original(config);
    made.push(consumer);
    return consumer;
  });
  return { made, restore: () => spy.mockRestore() };
}

async function newTopic(): Promise<string> {
  const topic = `messaging-test-${suffix()}`;
  await ensureTopics(kafka, [topic], { partitions: 1, replicationFactor: 1 });
  return topic;
}

/** Ten messages 10 ms apart: with no wait, each would be a fetch, and a batch, of its own. */
async function trickle(topic: string): Promise<number[]> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const sentAt: number[] = [];
  try {
    for (let i = 0; i < 10; i++) {
      sentAt.push(Date.now());
      await producer.send({ topic, messages: [{ key: `m${i}`, value: `m${i}` }] });
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await producer.disconnect();
  }
  return sentAt;
}

describe('FetchWait (real Kafka)', () => {
  it('a TopicTail with a 25 ms wait asks an idle broker about twice a second (its long poll), not 40 times', async () => {
    const topic = await newTopic();
    const { made, restore } = consumersMade();
    const tail = new TopicTail({
      kafka,
      topic,
      groupId: `messaging-test-${suffix()}`,
      logger,
      startAt: ({ high }) => high,
      fetch: { maxWaitMs: 25 },
      handle: async () => undefined,
    });
    try {
      await tail.start();
      await until(() => tail.caughtUp(), 30_000, 'caught up');
      expect(made).toHaveLength(1);
      expect(await fetchesWithin(made[0]!, 3_000)).toBeLessThanOrEqual(10);
    } finally {
      restore();
      await tail.stop();
    }
  });

  it('an EventConsumer with a wait gathers a trickle into a few batches, each message within the wait, and idles on its long poll', async () => {
    const topic = await newTopic();
    const group = `messaging-test-${suffix()}`;
    await ensureTopics(kafka, [`${group}-dlq`], { partitions: 1, replicationFactor: 1 });
    const { made, restore } = consumersMade();
    const batches: Array<{ at: number; keys: string[] }> = [];
    const consumer = new EventConsumer({
      kafka,
      groupId: group,
      topics: [topic],
      logger,
      fetch: { maxWaitMs: 400 },
      lookAhead: async (messages) => void batches.push({ at: Date.now(), keys: messages.map((m) => m.key!) }),
      handle: async () => undefined,
    });
    try {
      await consumer.start();
      await until(() => consumer.isReady(), 30_000, 'joined');
      expect(made).toHaveLength(1);
      // Idle: one fetch per long poll (1 s), where a 400 ms broker-side wait fetched 2.5 times a second.
      expect(await fetchesWithin(made[0]!, 3_000)).toBeLessThanOrEqual(5);

      const sentAt = await trickle(topic);
      await until(() => batches.flatMap((b) => b.keys).length === 10, 30_000, 'the ten messages');
      expect(batches.flatMap((b) => b.keys)).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
      expect(batches.length).toBeLessThanOrEqual(3);
      let i = 0;
      for (const batch of batches)
        for (const _ of batch.keys) expect(batch.at - sentAt[i++]!).toBeLessThan(400 + 500);
    } finally {
      restore();
      await consumer.stop();
    }
  });
});
