import type { membership } from '@flowboard/proto';
import type { JsonCache } from '../authz/json-cache';
import type { MembershipClient } from './membership.client';

export type UsersById = ReadonlyMap<number, membership.User__Output>;

/**
 * Every user a response refers to (creator, owner, author...), resolved at once: one Redis MGET of the cached
 * records (`gateway:user:<id>`), then ONE `BatchGetUsers` call for the ids Redis did not have, which are cached
 * for `ttlSeconds`. Almost every story response names a user, so this saves a membership round trip (and its
 * database query) on most requests. The only way a user record changes is `PUT /me`, which calls `forget`, so
 * a rename shows on the very next response; the TTL bounds anything else.
 */
export class UserDirectory {
  constructor(
    private readonly membership: MembershipClient,
    private readonly cache: JsonCache,
    private readonly ttlSeconds: number,
  ) {}

  /** 0 (nobody) and duplicates are dropped; no call at all when nothing is left. */
  async resolve(ids: Iterable<number>): Promise<UsersById> {
    const wanted = [...new Set([...ids].filter((id) => id > 0))];
    const found = new Map<number, membership.User__Output>();
    if (wanted.length === 0) return found;
    const cached = await this.cache.getMany<membership.User__Output>(wanted.map(cacheKey));
    cached.forEach((user, i) => user && found.set(wanted[i]!, user));
    const missing = wanted.filter((id) => !found.has(id));
    if (missing.length === 0) return found;
    const { users } = await this.membership.batchGetUsers(missing);
    for (const user of users) found.set(user.id, user);
    await this.cache.setMany(
      users.map((u) => [cacheKey(u.id), u]),
      this.ttlSeconds,
    );
    return found;
  }

  /** After the user changed (`PUT /me`): the next response reads the record from membership again. */
  async forget(userId: number): Promise<void> {
    await this.cache.delete(cacheKey(userId));
  }
}

const cacheKey = (userId: number) => `gateway:user:${userId}`;
