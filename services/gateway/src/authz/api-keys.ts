import { createHash } from 'node:crypto';
import { DomainError } from '@flowboard/service-kit';
import type { membership } from '@flowboard/proto';
import type { MembershipClient } from '../clients/membership.client';
import type { GuardedCache } from './guarded-cache';

type User = membership.User__Output;

const KEY_FORMAT = /^[0-9a-f]{32}$/;

const unauthorized = (message: string) => new DomainError('Unauthenticated', message);

/**
 * API key → user (api-compat §3.1): a key is 32 hex characters, trimmed and lower-cased; anything else is 401
 * without asking membership. Hits come from Redis (`gateway:apikey:{<sha256(key)>}`: the key itself is never
 * stored), misses from `membership.AuthenticateApiKey`. Only successes are cached.
 */
export class ApiKeyAuthenticator {
  constructor(
    private readonly membership: MembershipClient,
    private readonly cache: GuardedCache,
    private readonly ttlSeconds: number,
  ) {}

  async authenticate(rawKey: string): Promise<User> {
    const key = rawKey.trim().toLowerCase();
    if (!KEY_FORMAT.test(key)) throw unauthorized('The API key is malformed.');
    const slot = keySlot(createHash('sha256').update(key).digest('hex'));
    const cached = await this.cache.read<User>(slot);
    if (cached.value) return cached.value;
    const { user } = await this.membership.authenticateApiKey(key);
    if (!user) throw unauthorized('The API key is not valid.');
    // Guarded: a verification that raced the key's deletion is not cached after it.
    await this.cache.write(slot, cached.generation, user, this.ttlSeconds);
    return user;
  }

  /**
   * Drops the cached users of these keys (given as sha256 hex, as membership stores them): a deleted key is
   * refused, and a changed user is re-read, on the very next request.
   */
  async forget(keyHashes: string[]): Promise<void> {
    await this.cache.invalidate(...keyHashes.map(keySlot));
  }
}

const keySlot = (keyHash: string) => ({
  key: `gateway:apikey:{${keyHash}}`,
  generationKey: `gateway:apikey-generation:{${keyHash}}`,
});
