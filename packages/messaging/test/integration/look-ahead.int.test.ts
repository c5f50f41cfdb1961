import { Partitioners } from 'kafkajs';
import { ensureTopics, EventConsumer } from '../../src';
import { kafka, logger, suffix } from './support';

// Against a real broker: lookAhead sees each batch before any of its messages is handled, and a failing lookAhead
// holds the batch back (nothing handled, nothing skipped) until a later fetch sees it again.

describe('a consumer looking ahead at each batch (real Kafka)', () => {
  it('sees every message before it is handled, and a failed look-ahead holds the batch back', async () => {
    const topic = `messaging-test-${suffix()}`;
    const group = `messaging-test-${suffix()}`;
    await ensureTopics(kafka, [topic, `${group}-dlq`], { partitions: 1, replicationFactor: 1 });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const seen = new Set<string>();
    const log: string[] = [];
    let failures = 0;
    const consumer = new EventConsumer({
      kafka,
      groupId: group,
      topics: [topic],
      logger,
      retryDelayMs: () => 200,
      lookAhead: async (messages) => {
        if (failures++ === 0) throw new Error('the look-ahead query failed');
        log.push(`ahead ${messages.map((m) => m.key).join(',')}`);
        for (const m of messages) seen.add(m.key!);
      },
      handle: async (message) => {
        // Each message handled was looked at first.
        log.push(seen.has(message.key!) ? `handled ${message.key}` : `UNSEEN ${message.key}`);
      },
    });
    try {
      await consumer.start();
      await producer.send({ topic, messages: ['1', '2', '3'].map((key) => ({ key, value: key })) });
      const deadline = Date.now() + 30_000;
      while (log.filter((l) => l.startsWith('handled')).length < 3 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(failures).toBeGreaterThanOrEqual(2);
      expect(log.filter((l) => !l.startsWith('ahead'))).toEqual(['handled 1', 'handled 2', 'handled 3']);
      expect(log[0]).toMatch(/^ahead 1/);
    } finally {
      await consumer.stop();
      await producer.disconnect();
    }
  });
});
