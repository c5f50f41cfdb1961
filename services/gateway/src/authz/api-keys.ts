import { createHash } from 'node:crypto';
import { DomainError } from '@flowboard/service-kit';
import type { membership } from '@flowboard/proto';
import type { MembershipClient } from '../clients/membership.client';
import { LocalCache, type CacheEpoch } from './cache-epoch';
import type { GuardedCache } from './guarded-cache';

type User = membership.User__Output;

const KEY_FORMAT = /^[0-9a-f]{32}$/;

const unauthorized = (message: string) => new DomainError('Unauthenticated', message);

/** The form a key is counted and cached under: sha256 (hex) of the trimmed, lower-cased key. */
export const apiKeyHash = (rawKey: string): string =>
  createHash('sha256').update(rawKey.trim().toLowerCase()).digest('hex');

/**
 * API key → user (api-compat §3.1): a key is 32 hex characters, trimmed and lower-cased; anything else is 401
 * without asking membership. Hits come from this process (`local`, kept exact by the cache epoch), then from
 * Redis (`gateway:apikey:{<sha256(key)>}`: the key itself is never stored), misses from
 * `membership.AuthenticateApiKey`. Only successes are cached.
 */
export class ApiKeyAuthenticator {
  private readonly local: LocalCache<User>;

  constructor(
    private readonly membership: MembershipClient,
    private readonly cache: GuardedCache,
    private readonly ttlSeconds: number,
    private readonly epoch: CacheEpoch,
  ) {
    this.local = new LocalCache(epoch, ttlSeconds * 1000);
  }

  /** Whether this key authenticated here lately: its rate-limit count may then be read ahead of the check. */
  recognizes(keyHash: string): boolean {
    return this.local.get(keyHash) !== undefined;
  }

  /** The caller must have refreshed the cache epoch during this request (the HTTP chain does, first thing). */
  async authenticate(rawKey: string): Promise<User> {
    const key = rawKey.trim().toLowerCase();
    if (!KEY_FORMAT.test(key)) throw unauthorized('The API key is malformed.');
    const keyHash = apiKeyHash(key);
    const known = this.local.get(keyHash);
    if (known) return known;
    const ticket = this.local.ticket();
    const slot = keySlot(keyHash);
    const cached = await this.cache.read<User>(slot);
    if (cached.value) {
      this.local.set(keyHash, cached.value, ticket);
      return cached.value;
    }
    const { user } = await this.membership.authenticateApiKey(key);
    if (!user) throw unauthorized('The API key is not valid.');
    // Guarded: a verification that raced the key's deletion is not cached after it.
    await this.cache.write(slot, cached.generation, user, this.ttlSeconds);
    this.local.set(keyHash, user, ticket);
    return user;
  }

  /**
   * Drops the cached users of these keys (given as sha256 hex, as membership stores them): a deleted key is
   * refused, and a changed user is re-read, on the very next request, on every replica.
   */
  async forget(keyHashes: string[]): Promise<void> {
    await Promise.all([this.cache.invalidate(...keyHashes.map(keySlot)), this.epoch.advance()]);
  }
}

const keySlot = (keyHash: string) => ({
  key: `gateway:apikey:{${keyHash}}`,
  generationKey: `gateway:apikey-generation:{${keyHash}}`,
});
