import { loadConfig } from '@flowboard/service-kit';
import { configSchema } from './config';

describe('notifier config', () => {
  const required = {
    KAFKA_BROKERS: '127.0.0.1:9092',
    REDIS_URL: 'redis://127.0.0.1:6379',
    SMTP_URL: 'smtp://127.0.0.1:1025',
  };

  it('applies the documented defaults', () => {
    expect(loadConfig(configSchema, required)).toMatchObject({
      HTTP_PORT: 8081,
      HTTP_HOST: '127.0.0.1',
      KAFKA_BROKERS: ['127.0.0.1:9092'],
      MAIL_FROM: 'Flowboard <no-reply@flowboard.local>',
      PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
      DEDUPE_TTL_SECONDS: 604_800,
      DEDUPE_PENDING_TTL_SECONDS: 120,
      RETRY_INITIAL_MS: 1_000,
      RETRY_MAX_MS: 60_000,
      LOG_LEVEL: 'info',
    });
  });

  it('refuses a non-SMTP mail URL and lists every problem', () => {
    expect(() =>
      loadConfig(configSchema, { ...required, SMTP_URL: 'http://127.0.0.1:8025', REDIS_URL: '' }),
    ).toThrow(/SMTP_URL[\s\S]*REDIS_URL|REDIS_URL[\s\S]*SMTP_URL/);
  });
});
