import { createLogger } from '@flowboard/service-kit';
import { fakeEpochRedis } from '../../test/unit/fake-epoch-redis';
import { CacheEpoch, LocalCache } from './epoch';

const silent = createLogger('test', 'silent');

async function setUp(ttlMs = 60_000, maxEntries = 10_000) {
  const { server, redis } = fakeEpochRedis();
  const epoch = new CacheEpoch(redis, silent);
  const cache = new LocalCache<{ name: string }>(epoch, ttlMs, maxEntries);
  await epoch.refresh();
  return { server, epoch, cache };
}

describe('LocalCache under a CacheEpoch', () => {
  it('serves what was stored under the current epoch, frozen', async () => {
    const { cache } = await setUp();
    cache.set('k', { name: 'Gob' }, cache.ticket());
    expect(cache.get('k')).toEqual({ name: 'Gob' });
    expect(Object.isFrozen(cache.get('k'))).toBe(true);
  });

  it('refuses a value whose ticket predates an invalidation (the revocation race)', async () => {
    const { cache, epoch } = await setUp();
    const ticket = cache.ticket(); // taken before asking the source...
    await epoch.advance(); // ...a revocation happens meanwhile...
    cache.set('k', { name: 'stale' }, ticket); // ...and the old answer must not be stored
    expect(cache.get('k')).toBeUndefined();
  });

  it('empties itself when a refresh finds a new epoch (another replica invalidated)', async () => {
    const { cache, epoch, server } = await setUp();
    cache.set('k', { name: 'Gob' }, cache.ticket());
    server.epoch = '1001';
    await epoch.refresh();
    expect(cache.get('k')).toBeUndefined();
  });

  it('serves nothing while the epoch cannot be read, and stores nothing either', async () => {
    const { cache, epoch, server } = await setUp();
    cache.set('k', { name: 'Gob' }, cache.ticket());
    server.up = false;
    await epoch.refresh();
    expect(cache.get('k')).toBeUndefined();
    expect(cache.ticket()).toBeUndefined();
    cache.set('k', { name: 'Gob' }, cache.ticket());
    server.up = true;
    await epoch.refresh();
    expect(cache.get('k')).toBeUndefined();
  });

  it('advancing drops this replica’s entries even when Redis is down', async () => {
    const { cache, epoch, server } = await setUp();
    cache.set('k', { name: 'Gob' }, cache.ticket());
    server.up = false;
    await epoch.advance();
    expect(cache.get('k')).toBeUndefined();
  });

  it('forgets an entry after its TTL', async () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const { cache } = await setUp(1_000);
      cache.set('k', { name: 'Gob' }, cache.ticket());
      jest.setSystemTime(999);
      expect(cache.get('k')).toBeDefined();
      jest.setSystemTime(1_000);
      expect(cache.get('k')).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps at most maxEntries, dropping the oldest first', async () => {
    const { cache } = await setUp(60_000, 2);
    for (const key of ['a', 'b', 'c']) cache.set(key, { name: key }, cache.ticket());
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toEqual({ name: 'b' });
    expect(cache.get('c')).toEqual({ name: 'c' });
  });
});
