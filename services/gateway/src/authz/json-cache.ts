import type { Logger } from '@flowboard/service-kit';
import type Redis from 'ioredis';

/**
 * A best-effort JSON cache over Redis: a miss or a Redis error both mean "ask the source", so Redis being down
 * slows the gateway but never breaks it (architecture guide §4, gateway).
 */
export class JsonCache {
  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  async get<T>(key: string): Promise<T | undefined> {
    try {
      const raw = await this.redis.get(key);
      return raw === null ? undefined : (JSON.parse(raw) as T);
    } catch (err) {
      this.logger.warn({ err: errorSummary(err) }, 'cache read failed; asking the source');
      return undefined;
    }
  }

  async set(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    try {
      await this.redis.set(key, JSON.stringify(value), 'EX', ttlSeconds);
    } catch (err) {
      this.logger.warn({ err: errorSummary(err) }, 'cache write failed');
    }
  }

  /** Deletes these exact keys (no scan). */
  async delete(...keys: string[]): Promise<void> {
    if (!keys.length) return;
    try {
      await this.redis.del(...keys);
    } catch (err) {
      this.logger.warn({ err: errorSummary(err) }, 'cache invalidation failed');
    }
  }

  /** Deletes every key matching a glob pattern (used on writes that change access). */
  async deleteMatching(pattern: string): Promise<void> {
    try {
      const stream = this.redis.scanStream({ match: pattern, count: 200 });
      for await (const keys of stream as AsyncIterable<string[]>) {
        if (keys.length) await this.redis.del(...keys);
      }
    } catch (err) {
      this.logger.warn({ err: errorSummary(err) }, 'cache invalidation failed');
    }
  }
}

// Cache keys hold hashes of API keys; log only the error's message, never the command arguments.
const errorSummary = (err: unknown) => ({ message: err instanceof Error ? err.message : String(err) });
