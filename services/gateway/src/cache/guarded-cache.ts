import type { Logger } from '@flowboard/service-kit';
import type Redis from 'ioredis';
import type { PendingInvalidations } from './pending-invalidations';

/**
 * Where one cached decision lives: a plain key, or a field of a hash (a group invalidated together), plus the
 * key of its group's generation counter. Both keys carry the same `{hash tag}`, so the scripts below stay valid
 * on a Redis Cluster.
 */
export interface CacheSlot {
  key: string;
  field?: string;
  generationKey: string;
}

/** A read: the value if cached, and the generation to hand back to `write` (undefined: Redis failed, don't). */
export interface GuardedRead<T> {
  value: T | undefined;
  generation: string | undefined;
}

// KEYS[1] value key, KEYS[2] generation key; ARGV[1] hash field ('' = plain key).
const READ = `
local v
if ARGV[1] == '' then v = redis.call('GET', KEYS[1]) else v = redis.call('HGET', KEYS[1], ARGV[1]) end
return {v or false, redis.call('GET', KEYS[2]) or '0'}`;

// KEYS as READ; ARGV: field, the generation read before asking the source, JSON value, TTL seconds.
const WRITE = `
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[2] then return 0 end
if ARGV[1] == '' then
  redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[4])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[4], 'NX')
end
return 1`;

// KEYS as READ; ARGV[1] how long the generation outlives the entry (longer than any request).
const INVALIDATE = `
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[1])
return 1`;

/** A generation outlives every request that could have read the one before (a day: deadlines are seconds). */
const GENERATION_TTL_SECONDS = 86_400;

/**
 * A best-effort JSON cache for access decisions, safe against the revocation race: a request that read
 * nothing asks the source, and by the time it writes the answer, a revocation may already have deleted the
 * entry — a plain SET would bring the revoked decision back for a whole TTL. Every invalidation therefore
 * bumps a generation, and a write lands only if the generation is still the one read before asking the source
 * (compared inside Redis, in one script). Redis errors mean "ask the source" and "skip the write", never a
 * failed request.
 */
export class GuardedCache {
  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly pending?: PendingInvalidations,
  ) {}

  async read<T>(slot: CacheSlot): Promise<GuardedRead<T>> {
    try {
      const [raw, generation] = (await this.redis.eval(
        READ,
        2,
        slot.key,
        slot.generationKey,
        slot.field ?? '',
      )) as [string | null, string];
      return { value: raw === null ? undefined : (JSON.parse(raw) as T), generation };
    } catch (err) {
      this.logger.warn({ err: errorSummary(err) }, 'cache read failed; asking the source');
      return { value: undefined, generation: undefined };
    }
  }

  /** Stores `value` unless the slot was invalidated since `generation` was read. */
  async write(
    slot: CacheSlot,
    generation: string | undefined,
    value: unknown,
    ttlSeconds: number,
  ): Promise<void> {
    if (generation === undefined) return;
    try {
      await this.redis.eval(
        WRITE,
        2,
        slot.key,
        slot.generationKey,
        slot.field ?? '',
        generation,
        JSON.stringify(value),
        ttlSeconds,
      );
    } catch (err) {
      this.logger.warn({ err: errorSummary(err) }, 'cache write failed');
    }
  }

  /** Drops the entry (the whole hash, for a field slot) and fences off writes of answers read before now. */
  async invalidate(...slots: Omit<CacheSlot, 'field'>[]): Promise<void> {
    if (!slots.length) return;
    const results = await Promise.allSettled(slots.map((s) => this.invalidateOne(s)));
    const failed = slots.filter((_, i) => results[i]!.status === 'rejected');
    if (!failed.length) return;
    const err = (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason;
    this.logger.warn({ err: errorSummary(err) }, 'cache invalidation failed; made again when Redis answers');
    // Made again once Redis answers: the entry may still be there (pending-invalidations.ts).
    for (const s of failed) this.pending?.add(`guarded:${s.key}`, () => this.invalidateOne(s));
  }

  private invalidateOne(slot: Omit<CacheSlot, 'field'>): Promise<unknown> {
    return this.redis.eval(INVALIDATE, 2, slot.key, slot.generationKey, GENERATION_TTL_SECONDS);
  }
}

// Cache keys hold hashes of API keys; log only the error's message, never the command arguments.
const errorSummary = (err: unknown) => ({ message: err instanceof Error ? err.message : String(err) });
