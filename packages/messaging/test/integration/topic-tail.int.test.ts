import { ConfigResourceTypes, Partitioners } from 'kafkajs';
import {
  ensureTopicRetention,
  ensureTopics,
  OffsetGoneError,
  partitionRanges,
  readPartition,
  TopicTail,
  type LogRecord,
} from '../../src';
import { kafka, logger, suffix, until } from './support';

// Against a real broker: a process's own reader of every partition from chosen offsets (the gateway's change
// stream), and lazy reads of one partition's history.

async function topicWith(perPartition: number[]): Promise<string> {
  const topic = `messaging-test-${suffix()}`;
  await ensureTopics(kafka, [topic], { partitions: perPartition.length, replicationFactor: 1 });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    for (const [partition, count] of perPartition.entries()) {
      if (count === 0) continue;
      await producer.send({
        topic,
        messages: Array.from({ length: count }, (_, i) => ({
          partition,
          key: `k${partition}`,
          value: `p${partition}-${i}`,
        })),
      });
    }
  } finally {
    await producer.disconnect();
  }
  return topic;
}

describe('TopicTail (real Kafka)', () => {
  it('reads every partition from the chosen offsets, in order, then what comes after', async () => {
    const topic = await topicWith([5, 3]);
    const got = new Map<number, string[]>([
      [0, []],
      [1, []],
    ]);
    const tail = new TopicTail({
      kafka,
      topic,
      groupId: `messaging-test-${suffix()}`,
      logger,
      startAt: ({ high }) => high - 2, // the newest two of each
      handle: async (partition, records: LogRecord[]) => {
        got.get(partition)!.push(...records.map((r) => `${r.offset}:${r.value}`));
      },
    });
    try {
      const ranges = await tail.start();
      expect(ranges.map((r) => [r.partition, r.low, r.high])).toEqual([
        [0, 0, 5],
        [1, 0, 3],
      ]);
      await until(() => tail.caughtUp(), 30_000, 'caught up');
      expect(got.get(0)).toEqual(['3:p0-3', '4:p0-4']);
      expect(got.get(1)).toEqual(['1:p1-1', '2:p1-2']);
      const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      await producer.send({ topic, messages: [{ partition: 1, value: 'later' }] });
      await producer.disconnect();
      await until(() => got.get(1)!.length === 3, 30_000, 'the later message');
      expect(got.get(1)![2]).toBe('3:later');
    } finally {
      await tail.stop();
    }
  });
});

describe('TopicTail with a fetch wait (real Kafka)', () => {
  it('gathers a trickle of messages into a few batches, none later than the wait', async () => {
    const topic = await topicWith([0]);
    const batches: Array<{ at: number; values: string[] }> = [];
    const tail = new TopicTail({
      kafka,
      topic,
      groupId: `messaging-test-${suffix()}`,
      logger,
      startAt: ({ high }) => high,
      fetch: { maxWaitMs: 400 },
      handle: async (_partition, records: LogRecord[]) => {
        batches.push({ at: Date.now(), values: records.map((r) => String(r.value)) });
      },
    });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    try {
      await tail.start();
      await until(() => tail.caughtUp(), 30_000, 'caught up');
      // Ten messages 10 ms apart: without a wait, each would be a fetch of its own.
      const sentAt: number[] = [];
      for (let i = 0; i < 10; i++) {
        sentAt.push(Date.now());
        await producer.send({ topic, messages: [{ partition: 0, value: `m${i}` }] });
        await new Promise((r) => setTimeout(r, 10));
      }
      await until(() => batches.flatMap((b) => b.values).length === 10, 30_000, 'the ten messages');
      expect(batches.flatMap((b) => b.values)).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
      expect(batches.length).toBeLessThanOrEqual(3);
      // Each within the wait of its sending (and the broker's and this test's own turns).
      let i = 0;
      for (const batch of batches)
        for (const _ of batch.values) expect(batch.at - sentAt[i++]!).toBeLessThan(400 + 500);
    } finally {
      await producer.disconnect();
      await tail.stop();
    }
  });
});

describe('readPartition (real Kafka)', () => {
  it('reads one partition from an offset up to another, and nothing of the others', async () => {
    const topic = await topicWith([4, 50]);
    const read: string[] = [];
    for await (const record of readPartition(kafka, {
      topic,
      partition: 1,
      from: 10,
      upTo: 39,
      groupId: `messaging-test-${suffix()}`,
      logger,
    })) {
      read.push(`${record.partition}/${record.offset}:${record.value}`);
    }
    expect(read).toEqual(Array.from({ length: 30 }, (_, i) => `1/${10 + i}:p1-${10 + i}`));
  });

  it('stops reading, and lets go of its consumer, when the caller stops early', async () => {
    const topic = await topicWith([0, 20]);
    const read: number[] = [];
    for await (const record of readPartition(kafka, {
      topic,
      partition: 1,
      from: 0,
      upTo: 19,
      groupId: `messaging-test-${suffix()}`,
      logger,
    })) {
      read.push(record.offset);
      if (read.length === 3) break;
    }
    expect(read).toEqual([0, 1, 2]);
  });

  it('refuses a range older than what the partition retains', async () => {
    const topic = await topicWith([10]);
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.fetchTopicMetadata({ topics: [topic] }); // kafkajs' admin finds the leader from its metadata
      await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '6' }] });
    } finally {
      await admin.disconnect();
    }
    expect((await partitionRanges(kafka, topic))[0]).toEqual({ partition: 0, low: 6, high: 10 });
    const reading = async () => {
      for await (const _ of readPartition(kafka, {
        topic,
        partition: 0,
        from: 2,
        upTo: 9,
        groupId: `messaging-test-${suffix()}`,
        logger,
      }));
    };
    await expect(reading()).rejects.toThrow(OffsetGoneError);
  });
});

describe('ensureTopicRetention (real Kafka)', () => {
  it("sets retention.ms, keeps the topic's other overrides, and changes nothing when it is already so", async () => {
    const topic = `messaging-test-${suffix()}`;
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({
        topics: [
          {
            topic,
            numPartitions: 1,
            replicationFactor: 1,
            configEntries: [{ name: 'max.message.bytes', value: '2000000' }],
          },
        ],
      });
      expect(await ensureTopicRetention(kafka, topic, 3_600_000)).toEqual({ before: expect.any(String) });
      expect(await ensureTopicRetention(kafka, topic, 3_600_000)).toBeUndefined();
      const described = await admin.describeConfigs({
        resources: [
          {
            type: ConfigResourceTypes.TOPIC,
            name: topic,
            configNames: ['retention.ms', 'max.message.bytes'],
          },
        ],
        includeSynonyms: false,
      });
      const values = Object.fromEntries(
        described.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]),
      );
      expect(values).toEqual({ 'retention.ms': '3600000', 'max.message.bytes': '2000000' });
    } finally {
      await admin.disconnect();
    }
  });
});
