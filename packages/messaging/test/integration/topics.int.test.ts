import { Partitioners } from 'kafkajs';
import { createMetricsRegistry, type MetricsRegistry } from '@flowboard/service-kit';
import { createLazyTopicPublisher, ensureTopics, EventConsumer, MissingTopicsError } from '../../src';
import { kafka, logger, suffix } from './support';

// Against a real broker (the test infrastructure's Kafka has auto.create.topics.enable on, as Kafka's default is):
// topic creation as configured, no topic made when the services may not make one, and the lag gauge after a
// rebalance.

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function topicNames(): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
}

async function partitionsOf(topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    return topics[0]!.partitions.length;
  } finally {
    await admin.disconnect();
  }
}

describe('topics (real Kafka)', () => {
  it('creates a missing topic with the configured partitions', async () => {
    const topic = `messaging-test-${suffix()}`;
    await ensureTopics(kafka, [topic], { partitions: 5, replicationFactor: 1 });
    expect(await partitionsOf(topic)).toBe(5);
  });

  it('with create: false, names the missing topic, and neither it nor a publish or a consumer creates it', async () => {
    const topic = `messaging-test-${suffix()}`;
    await expect(ensureTopics(kafka, [topic], { create: false })).rejects.toThrow(MissingTopicsError);
    await expect(ensureTopics(kafka, [topic], { create: false })).rejects.toThrow(
      `Kafka topic ${topic} does not exist and KAFKA_CREATE_TOPICS is false`,
    );
    const publisher = createLazyTopicPublisher(kafka, { create: false });
    await expect(publisher.publish(topic, [{ key: 'k', value: '{}' }])).rejects.toThrow(
      `Kafka topic ${topic} does not exist`,
    );
    await publisher.disconnect();
    const consumer = new EventConsumer({
      kafka,
      groupId: `messaging-test-${suffix()}`,
      topics: [topic],
      logger,
      handle: async () => undefined,
      topicSettings: { create: false },
    });
    await expect(consumer.start()).rejects.toThrow(`Kafka topics ${topic}, `); // its dead-letter topic too
    await consumer.stop();
    expect(await topicNames()).not.toContain(topic);
  });
});

describe('consumer lag gauge across a rebalance (real Kafka)', () => {
  it('drops the series of the partitions a process gave to a new member, and keeps its own', async () => {
    const topic = `messaging-test-${suffix()}`;
    const group = `messaging-test-${suffix()}`;
    await ensureTopics(kafka, [topic, `${group}-dlq`], { partitions: 4, replicationFactor: 1 });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    // A message on every partition, so the first member reports the lag of all four.
    await producer.send({ topic, messages: [0, 1, 2, 3].map((partition) => ({ partition, value: '{}' })) });

    const member = (metrics: MetricsRegistry) =>
      new EventConsumer({
        kafka,
        groupId: group,
        topics: [topic],
        logger,
        metrics,
        handle: async () => undefined,
      });
    const lagPartitions = async (metrics: MetricsRegistry): Promise<string[]> => {
      const lag = metrics.getSingleMetric('flowboard_kafka_consumer_lag');
      if (!lag) return [];
      return (await lag.get()).values.map((v) => String(v.labels.partition)).sort();
    };
    const [a, b] = [createMetricsRegistry('a'), createMetricsRegistry('b')];
    const first = member(a);
    const second = member(b);
    try {
      await first.start();
      await waitFor(async () => (await lagPartitions(a)).length === 4, 30_000, 'the lag of four partitions');
      await second.start();
      // After the rebalance each holds two; the first reports only its own.
      await waitFor(
        async () => (await lagPartitions(a)).length === 2 && second.isReady() && first.isReady(),
        60_000,
        'the first member to drop the partitions it gave away',
      );
      await producer.send({ topic, messages: [0, 1, 2, 3].map((partition) => ({ partition, value: '{}' })) });
      await waitFor(async () => (await lagPartitions(b)).length === 2, 30_000, "the second member's lag");
      const [mine, theirs] = [await lagPartitions(a), await lagPartitions(b)];
      expect([...mine, ...theirs].sort()).toEqual(['0', '1', '2', '3']);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
      await producer.disconnect();
    }
  });
});
