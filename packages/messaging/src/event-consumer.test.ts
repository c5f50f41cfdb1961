import type { Kafka } from 'kafkajs';
import { createLogger, createMetricsRegistry, gauge } from '@flowboard/service-kit';
import { EventConsumer, staleLagSeries } from './event-consumer';

describe('staleLagSeries', () => {
  it("names the group's series of partitions not in the assignment", () => {
    const series = [
      { labels: { group: 'g', topic: 't', partition: '0' } },
      { labels: { group: 'g', topic: 't', partition: '1' } },
      { labels: { group: 'g', topic: 'u', partition: '0' } },
      { labels: { group: 'other', topic: 't', partition: '1' } },
    ];
    expect(staleLagSeries(series, 'g', { t: [0], u: [] })).toEqual([
      { group: 'g', topic: 't', partition: '1' },
      { group: 'g', topic: 'u', partition: '0' },
    ]);
    expect(staleLagSeries(series, 'g', { t: [0, 1], u: [0] })).toEqual([]);
  });
});

/** An EventConsumer of group `g` on topic `t` over a stand-in kafkajs client, handling every message at once. */
const consumerOn = (kafka: Kafka, metrics?: ReturnType<typeof createMetricsRegistry>) =>
  new EventConsumer({
    kafka,
    groupId: 'g',
    topics: ['t'],
    logger: createLogger('test', 'silent'),
    handle: () => Promise.resolve(),
    ...(metrics ? { metrics } : {}),
  });

describe('EventConsumer after a crash (a stand-in kafkajs client)', () => {
  it('lets kafkajs restart a crashed consumer until stop() is called, and never after', async () => {
    let retry: { restartOnFailure?: (e: Error) => Promise<boolean> } = {};
    const kafka = {
      consumer: (config: { retry: typeof retry }) => {
        retry = config.retry;
        return { events: {}, on: () => undefined, disconnect: async () => undefined };
      },
      producer: () => ({ disconnect: async () => undefined }),
    } as unknown as Kafka;
    const consumer = consumerOn(kafka);
    await expect(retry.restartOnFailure!(new Error('broker gone'))).resolves.toBe(true);
    await consumer.stop();
    await expect(retry.restartOnFailure!(new Error('broker gone'))).resolves.toBe(false);
  });
});

describe('EventConsumer lag gauge on a rebalance (a stand-in kafkajs client)', () => {
  it('drops the series of partitions this process no longer holds when it joins the group again', async () => {
    const listeners = new Map<string, (e: unknown) => void>();
    const events = { GROUP_JOIN: 'join', CRASH: 'crash', DISCONNECT: 'disconnect', STOP: 'stop' };
    const kafka = {
      consumer: () => ({ events, on: (name: string, fn: (e: unknown) => void) => listeners.set(name, fn) }),
      producer: () => ({}),
    } as unknown as Kafka;
    const metrics = createMetricsRegistry('test');
    const consumer = consumerOn(kafka, metrics);
    // The gauge the consumer reports into (get-or-create by name), with the lag of three partitions and another
    // group's.
    const lag = gauge(metrics, {
      name: 'flowboard_kafka_consumer_lag',
      help: '',
      labelNames: ['group', 'topic', 'partition'],
    });
    for (const partition of ['0', '1', '2']) lag.set({ group: 'g', topic: 't', partition }, 5);
    lag.set({ group: 'h', topic: 't', partition: '1' }, 7);

    listeners.get('join')!({ payload: { memberAssignment: { t: [2] } } });
    expect(consumer.isReady()).toBe(true);
    await new Promise((r) => setImmediate(r));
    const left = (await lag.get()).values.map((v) => `${v.labels.group}/${v.labels.partition}=${v.value}`);
    expect(left.sort()).toEqual(['g/2=5', 'h/1=7']);
  });
});
