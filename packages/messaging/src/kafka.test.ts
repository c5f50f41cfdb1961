import type { Kafka } from 'kafkajs';
import { ConfigError, createLogger } from '@flowboard/service-kit';
import { ensureTopics, kafkaSecurity, MissingTopicsError, planTopics, topicSettings } from './kafka';

describe('planTopics', () => {
  const existing = new Map([
    ['a', 3],
    ['b', 12],
  ]);

  it('creates what is missing, by default', () => {
    expect(planTopics(['a', 'b', 'c', 'c'], existing)).toEqual({
      create: ['c'],
      missing: [],
      fewerPartitions: [],
    });
  });

  it('creates nothing with create: false, and names what is missing', () => {
    expect(planTopics(['a', 'c', 'd'], existing, { create: false })).toEqual({
      create: [],
      missing: ['c', 'd'],
      fewerPartitions: [],
    });
  });

  it('reports existing topics with fewer partitions than configured', () => {
    expect(planTopics(['a', 'b'], existing, { partitions: 12 }).fewerPartitions).toEqual([
      { topic: 'a', partitions: 3 },
    ]);
  });
});

describe('topicSettings', () => {
  it('maps the three variables', () => {
    expect(
      topicSettings({ KAFKA_TOPIC_PARTITIONS: 12, KAFKA_TOPIC_REPLICATION: 3, KAFKA_CREATE_TOPICS: false }),
    ).toEqual({ partitions: 12, replicationFactor: 3, create: false });
  });
});

describe('kafkaSecurity', () => {
  const security = (config: Partial<Parameters<typeof kafkaSecurity>[0]>) =>
    kafkaSecurity({ KAFKA_TLS: false, KAFKA_SASL_MECHANISM: 'none', ...config });

  it('is plaintext without SASL by default (as before the settings existed)', () => {
    expect(security({})).toEqual({ tls: false });
    expect(security({ KAFKA_SASL_USERNAME: 'ignored' })).toEqual({ tls: false });
  });

  it('turns on TLS and SCRAM', () => {
    expect(
      security({
        KAFKA_TLS: true,
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        KAFKA_SASL_USERNAME: 'boards',
        KAFKA_SASL_PASSWORD: 's3cret',
      }),
    ).toEqual({ tls: true, sasl: { mechanism: 'scram-sha-512', username: 'boards', password: 's3cret' } });
  });

  it('names every missing credential of a mechanism', () => {
    expect(() => security({ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_PASSWORD: '' })).toThrow(
      ConfigError,
    );
    expect(() => security({ KAFKA_SASL_MECHANISM: 'scram-sha-256' })).toThrow(
      /KAFKA_SASL_USERNAME: required when KAFKA_SASL_MECHANISM is scram-sha-256[\s\S]*KAFKA_SASL_PASSWORD/,
    );
  });
});

describe('MissingTopicsError', () => {
  it('names the topics and the switch', () => {
    expect(new MissingTopicsError(['t1']).message).toMatch(
      /^Kafka topic t1 does not exist and KAFKA_CREATE_TOPICS is false: create it /,
    );
    expect(new MissingTopicsError(['t1', 't2']).message).toMatch(
      /^Kafka topics t1, t2 do not exist .* create them /,
    );
  });
});

describe('ensureTopics (a stand-in admin client)', () => {
  function fakeKafka(topics: Record<string, number>) {
    const created: unknown[] = [];
    const admin = {
      connect: jest.fn().mockResolvedValue(undefined),
      disconnect: jest.fn().mockResolvedValue(undefined),
      listTopics: jest.fn(async () => Object.keys(topics)),
      fetchTopicMetadata: jest.fn(async ({ topics: names }: { topics: string[] }) => ({
        topics: names.map((name) => ({
          name,
          partitions: Array.from({ length: topics[name]! }, () => ({})),
        })),
      })),
      createTopics: jest.fn(async (options: unknown) => {
        created.push(options);
        return true;
      }),
    };
    return { kafka: { admin: () => admin } as unknown as Kafka, admin, created };
  }

  it('creates missing topics with 3 partitions and the broker default replication, as before', async () => {
    const { kafka, created, admin } = fakeKafka({ a: 3 });
    await ensureTopics(kafka, ['a', 'b']);
    expect(created).toEqual([
      { topics: [{ topic: 'b', numPartitions: 3, replicationFactor: -1 }], waitForLeaders: true },
    ]);
    expect(admin.disconnect).toHaveBeenCalled();
  });

  it('creates them with the configured partitions and replication', async () => {
    const { kafka, created } = fakeKafka({});
    await ensureTopics(kafka, ['b'], { partitions: 12, replicationFactor: 3 });
    expect(created).toEqual([
      { topics: [{ topic: 'b', numPartitions: 12, replicationFactor: 3 }], waitForLeaders: true },
    ]);
  });

  it('with create: false, creates nothing and fails naming the missing topic', async () => {
    const { kafka, created, admin } = fakeKafka({ a: 12 });
    await expect(ensureTopics(kafka, ['a', 'b'], { create: false })).rejects.toThrow(
      'Kafka topic b does not exist and KAFKA_CREATE_TOPICS is false',
    );
    expect(created).toEqual([]);
    expect(admin.disconnect).toHaveBeenCalled();
    await expect(ensureTopics(kafka, ['a'], { create: false })).resolves.toBeUndefined();
  });

  it('warns about an existing topic with fewer partitions, and leaves it', async () => {
    const { kafka, created } = fakeKafka({ a: 3 });
    const logger = createLogger('test', 'silent');
    const warn = jest.spyOn(logger, 'warn');
    await ensureTopics(kafka, ['a'], { partitions: 12, logger });
    expect(created).toEqual([]);
    expect(warn).toHaveBeenCalledWith(
      { topic: 'a', partitions: 3, configured: 12 },
      expect.stringContaining('fewer partitions than KAFKA_TOPIC_PARTITIONS'),
    );
  });
});
