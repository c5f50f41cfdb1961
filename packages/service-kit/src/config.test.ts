import { z } from 'zod';
import { ConfigError, env, loadConfig } from './config';

const schema = z.object({ PORT: env.port(8080), DATABASE_URL: env.url(), KAFKA_BROKERS: env.list() });

describe('loadConfig', () => {
  it('parses and applies defaults', () => {
    const config = loadConfig(schema, {
      DATABASE_URL: 'postgresql://x@127.0.0.1/db',
      KAFKA_BROKERS: 'a:1, b:2',
    });
    expect(config).toEqual({
      PORT: 8080,
      DATABASE_URL: 'postgresql://x@127.0.0.1/db',
      KAFKA_BROKERS: ['a:1', 'b:2'],
    });
  });

  it('lists every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: 'eighty' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/PORT/);
    expect(problems).toMatch(/DATABASE_URL/);
    expect(problems).toMatch(/KAFKA_BROKERS/);
  });
});

describe('the shared variables: pool size and topic settings', () => {
  const shared = z.object({
    DATABASE_POOL_SIZE: env.poolSize(),
    KAFKA_TOPIC_PARTITIONS: env.topicPartitions(),
    KAFKA_TOPIC_REPLICATION: env.topicReplication(),
    KAFKA_CREATE_TOPICS: env.bool(true),
  });
  const problemsWith = (vars: Record<string, string>) => {
    try {
      loadConfig(shared, vars);
      return [];
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return err.problems;
    }
  };

  it('defaults to a pool of 10, 3 partitions, the broker default replication, and creating topics (as before)', () => {
    expect(loadConfig(shared, {})).toEqual({
      DATABASE_POOL_SIZE: 10,
      KAFKA_TOPIC_PARTITIONS: 3,
      KAFKA_TOPIC_REPLICATION: -1,
      KAFKA_CREATE_TOPICS: true,
    });
    expect(
      loadConfig(shared, {
        DATABASE_POOL_SIZE: '100',
        KAFKA_TOPIC_PARTITIONS: '12',
        KAFKA_TOPIC_REPLICATION: '3',
        KAFKA_CREATE_TOPICS: 'false',
      }),
    ).toEqual({
      DATABASE_POOL_SIZE: 100,
      KAFKA_TOPIC_PARTITIONS: 12,
      KAFKA_TOPIC_REPLICATION: 3,
      KAFKA_CREATE_TOPICS: false,
    });
  });

  it.each(['0', '101', '-5', '2.5', 'ten', ''])('refuses a pool size of %j, naming the variable', (bad) => {
    expect(problemsWith({ DATABASE_POOL_SIZE: bad })).toEqual([
      expect.stringMatching(/^DATABASE_POOL_SIZE: /),
    ]);
  });

  it('refuses 0 partitions, a replication factor of 0 and a switch that is not a boolean, naming each', () => {
    expect(
      problemsWith({ KAFKA_TOPIC_PARTITIONS: '0', KAFKA_TOPIC_REPLICATION: '0', KAFKA_CREATE_TOPICS: 'no' }),
    ).toEqual([
      expect.stringMatching(/^KAFKA_TOPIC_PARTITIONS: /),
      expect.stringMatching(/^KAFKA_TOPIC_REPLICATION: must be -1 \(the broker default\) or at least 1/),
      expect.stringMatching(/^KAFKA_CREATE_TOPICS: /),
    ]);
  });
});

describe('the shared variables: Kafka TLS and SASL', () => {
  const schema = z.object({
    KAFKA_TLS: env.bool(false),
    KAFKA_SASL_MECHANISM: env.kafkaSaslMechanism(),
    KAFKA_SASL_USERNAME: env.kafkaSaslCredential(),
    KAFKA_SASL_PASSWORD: env.kafkaSaslCredential(),
  });

  it('defaults to plaintext without SASL, and reads an empty credential (a chart default) as unset', () => {
    expect(loadConfig(schema, { KAFKA_SASL_USERNAME: '' })).toEqual({
      KAFKA_TLS: false,
      KAFKA_SASL_MECHANISM: 'none',
      KAFKA_SASL_USERNAME: undefined,
      KAFKA_SASL_PASSWORD: undefined,
    });
  });

  it('reads TLS, a SCRAM mechanism and its credentials', () => {
    expect(
      loadConfig(schema, {
        KAFKA_TLS: 'true',
        KAFKA_SASL_MECHANISM: 'scram-sha-256',
        KAFKA_SASL_USERNAME: 'boards',
        KAFKA_SASL_PASSWORD: 'pw',
      }),
    ).toEqual({
      KAFKA_TLS: true,
      KAFKA_SASL_MECHANISM: 'scram-sha-256',
      KAFKA_SASL_USERNAME: 'boards',
      KAFKA_SASL_PASSWORD: 'pw',
    });
  });

  it('refuses a mechanism kafkajs does not speak and a TLS switch that is not a boolean', () => {
    expect(() => loadConfig(schema, { KAFKA_TLS: 'yes', KAFKA_SASL_MECHANISM: 'gssapi' })).toThrow(
      /KAFKA_TLS[\s\S]*KAFKA_SASL_MECHANISM/,
    );
  });
});
