import type { Logger } from '@flowboard/service-kit';
import type Redis from 'ioredis';
import { ClockCounters } from './clock-counters';
import type { PendingInvalidations } from './pending-invalidations';

/** One number in Redis that every replica reads once per request and every invalidation advances. */
const EPOCH_KEY = 'gateway:cache-epoch';

/** What a cache kept exact by the epoch offers it. */
export interface EpochBound {
  clear(): void;
}

/**
 * Keeps the gateway's in-process caches exact across replicas. Each request reads the epoch before it uses a
 * local entry (one command, sent in the same pipelined write as the request's rate-limit reads); every
 * invalidation — a key deleted, a member removed, a user renamed — advances it before its response is sent.
 * A replica that sees a new epoch empties all its local caches, so a revocation holds from the very next
 * request on every replica, as it did when every decision came from Redis; between invalidations, repeated
 * decisions cost no Redis round trip of their own.
 *
 * While the epoch can't be read (Redis down), local entries are not used at all: the caller goes to Redis
 * (which fails fast) and then to the source, as before.
 */
export class CacheEpoch {
  private current: string | undefined;
  private readonly caches = new Set<EpochBound>();
  private readonly counters: ClockCounters;

  constructor(
    redis: Redis,
    private readonly logger: Logger,
    private readonly pending?: PendingInvalidations,
  ) {
    this.counters = new ClockCounters(redis);
  }

  /** The epoch local entries are valid under; undefined while unknown (never read, or the last read failed). */
  get known(): string | undefined {
    return this.current;
  }

  /** Reads the epoch; never rejects. A change (or a failure) empties every local cache. */
  async refresh(): Promise<void> {
    const epoch = await this.counters.read(EPOCH_KEY).catch(() => undefined);
    this.moveTo(epoch);
  }

  /** After a change that cached decisions may not outlive: every replica's local caches start over. */
  async advance(): Promise<void> {
    this.moveTo(undefined); // this replica at once, whatever Redis says
    try {
      this.moveTo(await this.counters.advance(EPOCH_KEY));
    } catch (err) {
      this.logger.warn(
        { err: { message: err instanceof Error ? err.message : String(err) } },
        'cache epoch not advanced; advanced when Redis answers (replicas that still reach it may serve local entries until they expire)',
      );
      this.pending?.add(`advance:${EPOCH_KEY}`, () => this.counters.advance(EPOCH_KEY));
    }
  }

  /** A cache to empty whenever the epoch moves or can't be read. */
  register(cache: EpochBound): void {
    this.caches.add(cache);
  }

  private moveTo(epoch: string | undefined): void {
    if (epoch === this.current) return;
    this.current = epoch;
    for (const cache of this.caches) cache.clear();
  }
}

/** Taken before asking the source: a value may be stored only if no invalidation happened since. */
export type StoreTicket = string | undefined;

/**
 * An in-process cache in front of Redis, valid only under the epoch it was filled in, bounded in size (the
 * oldest entry goes first) and in age (each entry lives `ttlMs`, as its Redis copy does).
 */
export class LocalCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();

  constructor(
    private readonly epoch: CacheEpoch,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {
    epoch.register(this);
  }

  get(key: string): T | undefined {
    if (this.epoch.known === undefined) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > Date.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Take this before reading Redis or the source, and hand it to `set` with what they answered. */
  ticket(): StoreTicket {
    return this.epoch.known;
  }

  set(key: string, value: T, ticket: StoreTicket): void {
    // An invalidation since the ticket was taken (or an unknown epoch): the value may be the revoked one.
    if (ticket === undefined || ticket !== this.epoch.known) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    // One object now serves many requests: frozen, so no handler can change what the next one sees.
    this.entries.set(key, { value: Object.freeze(value), expiresAt: Date.now() + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
