import { DomainError } from '@flowboard/service-kit';
import type { membership } from '@flowboard/proto';
import type { MembershipClient } from '../clients/membership.client';
import { DecisionCache, type CacheEpoch, type GuardedCache } from '../cache';
import { apiKeyHash } from './credentials';

type User = membership.User__Output;

const KEY_FORMAT = /^[0-9a-f]{32}$/;

const unauthorized = (message: string) => new DomainError('Unauthenticated', message);

/**
 * API key → user (docs/compat.md §3.1): a key is 32 hex characters, trimmed and lower-cased; anything else is
 * 401 without asking membership. Hits come from this replica's memory, then Redis
 * (`gateway:apikey:{<sha256(key)>}`: the key itself is never stored), misses from
 * `membership.AuthenticateApiKey`. Only successes are cached.
 */
export class ApiKeyAuthenticator {
  private readonly cache: DecisionCache<User>;

  constructor(
    private readonly membership: MembershipClient,
    shared: GuardedCache,
    ttlSeconds: number,
    epoch: CacheEpoch,
  ) {
    this.cache = new DecisionCache(shared, epoch, ttlSeconds);
  }

  /** Whether this key authenticated here lately: its rate-limit count may then be read ahead of the check. */
  recognizes(keyHash: string): boolean {
    return this.cache.has(keyHash);
  }

  /**
   * The caller must have refreshed the cache epoch during this request (the HTTP chain does, first thing).
   * `keyHash` is `apiKeyHash(rawKey)` when the caller already has it.
   */
  async authenticate(rawKey: string, keyHash?: string): Promise<User> {
    const key = rawKey.trim().toLowerCase();
    if (!KEY_FORMAT.test(key)) throw unauthorized('The API key is malformed.');
    const hash = keyHash ?? apiKeyHash(key);
    return this.cache.get(hash, keySlot(hash), async () => {
      const { user } = await this.membership.authenticateApiKey({ api_key: key });
      if (!user) throw unauthorized('The API key is not valid.');
      return user;
    });
  }

  /**
   * Drops the cached users of these keys (given as sha256 hex, as membership stores them): a deleted key is
   * refused, and a changed user is re-read, on the very next request, on every replica.
   */
  async forget(keyHashes: string[]): Promise<void> {
    await this.cache.invalidate(...keyHashes.map(keySlot));
  }
}

const keySlot = (keyHash: string) => ({
  key: `gateway:apikey:{${keyHash}}`,
  generationKey: `gateway:apikey-generation:{${keyHash}}`,
});
