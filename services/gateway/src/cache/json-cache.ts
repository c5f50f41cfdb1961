import type { Logger } from '@flowboard/service-kit';
import type Redis from 'ioredis';
import type { PendingInvalidations } from './pending-invalidations';

/**
 * A best-effort JSON cache over Redis: a miss or a Redis error both mean "ask the source", so Redis being down
 * slows the gateway but never breaks it (architecture guide §4, gateway).
 */
export class JsonCache {
  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly pending?: PendingInvalidations,
  ) {}

  /** Deletes these exact keys (no scan). */
  async delete(...keys: string[]): Promise<void> {
    if (!keys.length) return;
    try {
      await this.redis.del(...keys);
    } catch (err) {
      this.logger.warn(
        { err: errorSummary(err) },
        'cache invalidation failed; made again when Redis answers',
      );
      for (const key of keys) this.pending?.add(`del:${key}`, () => this.redis.del(key));
    }
  }

  /** Several keys in one round trip (MGET); a missing key, or every key when Redis fails, is undefined. */
  async getMany<T>(keys: string[]): Promise<(T | undefined)[]> {
    if (!keys.length) return [];
    try {
      const raws = await this.redis.mget(...keys);
      return raws.map((raw) => (raw === null ? undefined : (JSON.parse(raw) as T)));
    } catch (err) {
      this.logger.warn({ err: errorSummary(err) }, 'cache read failed; asking the source');
      return keys.map(() => undefined);
    }
  }

  /** Several keys with one TTL in one round trip (a pipeline of SET ... EX). */
  async setMany(entries: [key: string, value: unknown][], ttlSeconds: number): Promise<void> {
    if (!entries.length) return;
    try {
      const pipeline = this.redis.pipeline();
      for (const [key, value] of entries) pipeline.set(key, JSON.stringify(value), 'EX', ttlSeconds);
      await pipeline.exec();
    } catch (err) {
      this.logger.warn({ err: errorSummary(err) }, 'cache write failed');
    }
  }
}

// Cache keys hold hashes of API keys; log only the error's message, never the command arguments.
const errorSummary = (err: unknown) => ({ message: err instanceof Error ? err.message : String(err) });
