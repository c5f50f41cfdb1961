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
