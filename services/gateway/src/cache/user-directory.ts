import type { membership } from '@flowboard/proto';
import type { UsersById } from '@flowboard/representation';
import type { MembershipClient } from '../clients/membership.client';
import { LocalCache, type CacheEpoch } from './epoch';
import type { JsonCache } from './json-cache';

/**
 * Every user a response refers to (creator, owner, author...), resolved at once: from this process's cache
 * (exact across replicas through the cache epoch), then one Redis MGET of the cached records
 * (`gateway:user:<id>`), then ONE `BatchGetUsers` call for the ids neither had, which are cached for
 * `ttlSeconds`. Almost every story response names a user, so this saves a membership round trip (and its
 * database query) on most requests. The only way a user record changes is `PUT /me`, which calls `forget`, so
 * a rename shows on the very next response; the TTL bounds anything else.
 */
export class UserDirectory {
  private readonly local: LocalCache<membership.User__Output>;

  constructor(
    private readonly membership: MembershipClient,
    private readonly cache: JsonCache,
    private readonly ttlSeconds: number,
    private readonly epoch: CacheEpoch,
  ) {
    this.local = new LocalCache(epoch, ttlSeconds * 1000);
  }

  /** 0 (nobody) and duplicates are dropped; no call at all when nothing is left. */
  async resolve(ids: Iterable<number>): Promise<UsersById> {
    const found = new Map<number, membership.User__Output>();
    const wanted: number[] = [];
    for (const id of new Set(ids)) {
      if (id <= 0) continue;
      const known = this.local.get(String(id));
      if (known) found.set(id, known);
      else wanted.push(id);
    }
    if (wanted.length === 0) return found;
    const ticket = this.local.ticket();
    const cached = await this.cache.getMany<membership.User__Output>(wanted.map(cacheKey));
    cached.forEach((user, i) => {
      if (!user) return;
      found.set(wanted[i]!, user);
      this.local.set(String(user.id), user, ticket);
    });
    const missing = wanted.filter((id) => !found.has(id));
    if (missing.length === 0) return found;
    const { users } = await this.membership.batchGetUsers({ ids: missing });
    for (const user of users) {
      found.set(user.id, user);
      this.local.set(String(user.id), user, ticket);
    }
    await this.cache.setMany(
      users.map((u) => [cacheKey(u.id), u]),
      this.ttlSeconds,
    );
    return found;
  }

  /** After the user changed (`PUT /me`): the next response, on any replica, reads it from membership again. */
  async forget(userId: number): Promise<void> {
    await Promise.all([this.cache.delete(cacheKey(userId)), this.epoch.advance()]);
  }
}

const cacheKey = (userId: number) => `gateway:user:${userId}`;
