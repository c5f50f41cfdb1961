import type { Logger } from '@flowboard/service-kit';

/** At most this many distinct invalidations wait for Redis; past it, the rest live out their TTLs. */
const MAX_PENDING = 10_000;

/**
 * Invalidations that could not reach Redis (down or hung), kept to be made as soon as it answers again. A change
 * made while Redis was out of reach (a key revoked, a member removed, a user renamed, a story moved) still answers,
 * since a cache outage must not become an API outage; but the entries it should have deleted are still in Redis
 * (paused, partitioned: not lost) and the epoch and board versions it should have advanced still hold their old
 * values, so without this another replica, or this one, would serve them again once Redis is back, for up to their
 * TTL. Each invalidation is kept once (by key) and made again, in order, when Redis is ready (`flush`, on every
 * reconnection and every second while any wait). What it can't cover: a replica that dies with invalidations
 * waiting; those entries live out their TTL (access 30 s, keys 60 s, users 300 s, board answers 10 s by default).
 */
export class PendingInvalidations {
  private readonly jobs = new Map<string, () => Promise<unknown>>();
  private overflowed = 0;
  private flushing: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  get size(): number {
    return this.jobs.size;
  }

  /** `redo` makes the invalidation again and rejects if Redis still fails. */
  add(key: string, redo: () => Promise<unknown>): void {
    if (this.jobs.has(key))
      this.jobs.delete(key); // re-added last: order of the latest attempt
    else if (this.jobs.size >= MAX_PENDING) {
      this.overflowed += 1;
      return;
    }
    this.jobs.set(key, redo);
  }

  /** Makes every waiting invalidation, in order; the ones that fail again keep waiting. Never rejects. */
  flush(): Promise<void> {
    this.flushing ??= this.run().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async run(): Promise<void> {
    if (this.overflowed > 0) {
      this.logger.error(
        { lost: this.overflowed },
        'cache invalidations made while Redis was out of reach were too many to keep; those entries live out their TTL',
      );
      this.overflowed = 0;
    }
    let done = 0;
    for (const [key, redo] of [...this.jobs]) {
      try {
        await redo();
        if (this.jobs.get(key) === redo) this.jobs.delete(key);
        done += 1;
      } catch {
        break; // still out of reach: try again later, in the same order
      }
    }
    if (done > 0)
      this.logger.info({ done, waiting: this.jobs.size }, 'cache invalidations made after Redis came back');
  }
}
