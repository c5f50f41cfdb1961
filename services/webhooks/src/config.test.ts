import { ConfigError } from '@flowboard/service-kit';
import { loadWebhooksConfig } from './config';

const KEY = Buffer.alloc(32, 1).toString('base64');
const required = {
  DATABASE_URL: 'postgresql://webhooks@127.0.0.1:5432/flowboard',
  KAFKA_BROKERS: '127.0.0.1:9092',
  MEMBERSHIP_ADDR: '127.0.0.1:50052',
  SECRET_ENCRYPTION_KEY: KEY,
};

describe('config', () => {
  it('has the production defaults: a day of retries from 5 s doubling to 1 h, 10 s per attempt, public targets only', () => {
    const config = loadWebhooksConfig(required);
    expect(config).toMatchObject({
      GRPC_PORT: 50054,
      KAFKA_GROUP_ID: 'webhooks',
      DB_SCHEMA: 'webhooks',
      RETRY_INITIAL_MS: 5_000,
      RETRY_MAX_MS: 3_600_000,
      RETRY_GIVE_UP_AFTER_MS: 86_400_000,
      DELIVERY_TIMEOUT_MS: 10_000,
      DELIVERY_MAX_RESPONSE_BYTES: 65_536,
    });
    expect(config.WEBHOOK_ALLOWED_HOSTS).toEqual({ hosts: new Set(), ranges: [] });
    expect(config.SECRET_ENCRYPTION_KEY.key).toEqual(Buffer.alloc(32, 1));
  });

  it('reads the allow-list', () => {
    const config = loadWebhooksConfig({ ...required, WEBHOOK_ALLOWED_HOSTS: '127.0.0.0/8, hooks.internal' });
    expect([...config.WEBHOOK_ALLOWED_HOSTS.hosts]).toEqual(['hooks.internal']);
    expect(config.WEBHOOK_ALLOWED_HOSTS.ranges).toHaveLength(1);
  });

  it('lists every problem, without echoing the key', () => {
    let error: ConfigError | undefined;
    try {
      loadWebhooksConfig({
        ...required,
        SECRET_ENCRYPTION_KEY: 'c2hvcnQ=',
        WEBHOOK_ALLOWED_HOSTS: 'http://nope',
        RETRY_INITIAL_MS: '10000',
        RETRY_MAX_MS: '5000',
      });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems).toEqual([
      'SECRET_ENCRYPTION_KEY: must be base64 of 32 bytes (openssl rand -base64 32)',
      'WEBHOOK_ALLOWED_HOSTS: "http://nope" is not a host name, an IP address or a CIDR range',
    ]);
    expect(error!.message).not.toContain('c2hvcnQ=');
    expect(() =>
      loadWebhooksConfig({ ...required, RETRY_INITIAL_MS: '10000', RETRY_MAX_MS: '5000' }),
    ).toThrow(/RETRY_MAX_MS: must be at least RETRY_INITIAL_MS/);
    expect(() => loadWebhooksConfig({ DATABASE_URL: required.DATABASE_URL, KAFKA_BROKERS: 'k:1' })).toThrow(
      /SECRET_ENCRYPTION_KEY/,
    );
  });

  it('sizes the PostgreSQL pool: 10 by default, 1-100 whole numbers only', () => {
    expect(loadWebhooksConfig(required).DATABASE_POOL_SIZE).toBe(10);
    expect(loadWebhooksConfig({ ...required, DATABASE_POOL_SIZE: '25' }).DATABASE_POOL_SIZE).toBe(25);
    for (const bad of ['0', '101', '2.5', 'ten']) {
      expect(() => loadWebhooksConfig({ ...required, DATABASE_POOL_SIZE: bad })).toThrow(
        /DATABASE_POOL_SIZE: /,
      );
    }
  });
});
