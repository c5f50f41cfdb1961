import { LocalCache, type CacheEpoch } from './epoch';
import type { CacheSlot, GuardedCache } from './guarded-cache';

/**
 * Access decisions (key → user, project → access) in two tiers in front of membership: this replica's memory,
 * kept exact across replicas by the cache epoch, then Redis. Both tiers store an answer only if no invalidation
 * happened since it was asked for (the revocation race), and `invalidate` clears both before the revoking
 * request answers.
 */
export class DecisionCache<T> {
  private readonly local: LocalCache<T>;

  constructor(
    private readonly shared: GuardedCache,
    private readonly epoch: CacheEpoch,
    private readonly ttlSeconds: number,
  ) {
    this.local = new LocalCache(epoch, ttlSeconds * 1000);
  }

  /** Whether this replica holds a valid answer for `localKey` (no Redis call). */
  has(localKey: string): boolean {
    return this.local.get(localKey) !== undefined;
  }

  /**
   * Memory, then Redis, then `load`. The request must have refreshed the cache epoch first (the HTTP chain does).
   * A `load` that throws stores nothing.
   */
  async get(localKey: string, slot: CacheSlot, load: () => Promise<T>): Promise<T> {
    const known = this.local.get(localKey);
    if (known) return known;
    const ticket = this.local.ticket();
    const cached = await this.shared.read<T>(slot);
    if (cached.value) {
      this.local.set(localKey, cached.value, ticket);
      return cached.value;
    }
    const value = await load();
    await this.shared.write(slot, cached.generation, value, this.ttlSeconds);
    this.local.set(localKey, value, ticket);
    return value;
  }

  /** Drops these entries in Redis and every replica's memory. */
  async invalidate(...slots: Omit<CacheSlot, 'field'>[]): Promise<void> {
    await Promise.all([this.shared.invalidate(...slots), this.epoch.advance()]);
  }
}
