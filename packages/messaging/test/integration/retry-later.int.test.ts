import { Partitioners } from 'kafkajs';
import { ensureTopics, EventConsumer, RetryLaterError } from '../../src';
import { kafka, logger, suffix } from './support';

// Against a real broker: a handler's RetryLaterError pauses its partition for the time it names, holds back
// what follows (order kept), and is not a failure (retrying(), which readiness reads, stays empty).

describe('a handler asking to retry later (real Kafka)', () => {
  it('waits the time asked, keeps the order, and does not count as retrying', async () => {
    const topic = `messaging-test-${suffix()}`;
    const group = `messaging-test-${suffix()}`;
    await ensureTopics(kafka, [topic, `${group}-dlq`], { partitions: 1, replicationFactor: 1 });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const handled: Array<{ value: string; at: number }> = [];
    let firstSeenAt = 0;
    let duringWait: { retrying: number; waiting: number } | undefined;
    const consumer = new EventConsumer({
      kafka,
      groupId: group,
      topics: [topic],
      logger,
      handle: async (message) => {
        const value = message.value!.toString();
        if (value === 'a' && firstSeenAt === 0) {
          firstSeenAt = Date.now();
          setTimeout(() => {
            duringWait = { retrying: consumer.retrying().length, waiting: consumer.waiting().length };
          }, 1_000);
          throw new RetryLaterError('another delivery holds it', 2_000);
        }
        handled.push({ value, at: Date.now() });
      },
    });
    try {
      await consumer.start();
      await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }] });
      const deadline = Date.now() + 30_000;
      while (handled.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(handled.map((h) => h.value)).toEqual(['a', 'b']);
      expect(handled[0]!.at - firstSeenAt).toBeGreaterThanOrEqual(2_000);
      expect(duringWait).toEqual({ retrying: 0, waiting: 1 });
      expect([consumer.retrying(), consumer.waiting()]).toEqual([[], []]);
    } finally {
      await consumer.stop();
      await producer.disconnect();
    }
  });
});
