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

  /** One field of a hash (a group of entries that is invalidated together). */
  async getField<T>(key: string, field: string): Promise<T | undefined> {
    try {
      const raw = await this.redis.hget(key, field);
      return raw === null ? undefined : (JSON.parse(raw) as T);
    } catch (err) {
      this.logger.warn({ err: errorSummary(err) }, 'cache read failed; asking the source');
      return undefined;
    }
  }

  /**
   * Sets one field; the hash expires `ttlSeconds` after its FIRST field was written (EXPIRE NX), so no entry
   * is ever older than the TTL, and deleting the hash drops the whole group at once.
   */
  async setField(key: string, field: string, value: unknown, ttlSeconds: number): Promise<void> {
    try {
      await this.redis.multi().hset(key, field, JSON.stringify(value)).expire(key, ttlSeconds, 'NX').exec();
    } catch (err) {
      this.logger.warn({ err: errorSummary(err) }, 'cache write failed');
    }
  }
}

// Cache keys hold hashes of API keys; log only the error's message, never the command arguments.
const errorSummary = (err: unknown) => ({ message: err instanceof Error ? err.message : String(err) });
