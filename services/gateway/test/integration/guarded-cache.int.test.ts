import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createLogger } from '@flowboard/service-kit';
import { requireEnv } from '@flowboard/testing';
import { GuardedCache } from '../../src/cache';

let redis: Redis;
let cache: GuardedCache;

beforeAll(() => {
  redis = new Redis(requireEnv('REDIS_URL').REDIS_URL);
  cache = new GuardedCache(redis, createLogger('test', 'silent'));
});
afterAll(() => redis.quit());

/** A group of its own per test, so runs never see each other's entries. */
const group = () => {
  const tag = randomUUID();
  return { key: `test:guarded:{${tag}}`, generationKey: `test:guarded-generation:{${tag}}` };
};

describe('GuardedCache (real Redis): the revocation race', () => {
  it('drops an answer read before an invalidation, so a revoked decision is never cached after it', async () => {
    const slot = { ...group(), field: 'user-7' };
    const before = await cache.read(slot); // miss: the request now asks membership...
    expect(before.value).toBeUndefined();
    await cache.invalidate(slot); // ...while the member is removed
    await cache.write(slot, before.generation, { access: 'admin' }, 30); // the stale answer arrives
    expect((await cache.read(slot)).value).toBeUndefined();
    expect(await redis.exists(slot.key)).toBe(0);
  });

  it('caches an answer read after the last invalidation, for the TTL', async () => {
    const slot = { ...group(), field: 'user-7' };
    await cache.invalidate(slot);
    const read = await cache.read(slot);
    await cache.write(slot, read.generation, { access: 'read' }, 30);
    expect((await cache.read(slot)).value).toEqual({ access: 'read' });
    const ttl = await redis.ttl(slot.key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30);
  });

  it('invalidating a group drops every field of its hash; plain keys work the same way', async () => {
    const base = group();
    for (const field of ['a', 'b']) {
      const slot = { ...base, field };
      await cache.write(slot, (await cache.read(slot)).generation, field, 30);
    }
    expect((await cache.read({ ...base, field: 'b' })).value).toBe('b');
    await cache.invalidate(base);
    expect((await cache.read({ ...base, field: 'a' })).value).toBeUndefined();
    expect((await cache.read({ ...base, field: 'b' })).value).toBeUndefined();

    const plain = group();
    const first = await cache.read(plain);
    await cache.write(plain, first.generation, { id: 1 }, 30);
    expect((await cache.read(plain)).value).toEqual({ id: 1 });
    await cache.invalidate(plain);
    await cache.write(plain, first.generation, { id: 1 }, 30);
    expect((await cache.read(plain)).value).toBeUndefined();
  });

  it('never writes when the read failed (no generation)', async () => {
    const slot = group();
    await cache.write(slot, undefined, 'x', 30);
    expect(await redis.exists(slot.key)).toBe(0);
  });
});
