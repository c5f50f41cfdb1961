import { RedisDedupeStore, type RedisCommands } from './dedupe';

/** SET … EX … [NX], GET and DEL over a Map, with a clock to expire keys. */
class FakeRedis implements RedisCommands {
  now = 0;
  readonly data = new Map<string, { value: string; expiresAt: number }>();
  async set(key: string, value: string, _ex: 'EX', seconds: number, nx?: 'NX'): Promise<'OK' | null> {
    if (nx && (await this.get(key)) !== null) return null;
    this.data.set(key, { value, expiresAt: this.now + seconds * 1000 });
    return 'OK';
  }
  async get(key: string): Promise<string | null> {
    const entry = this.data.get(key);
    return entry && entry.expiresAt > this.now ? entry.value : null;
  }
  async del(key: string): Promise<number> {
    return this.data.delete(key) ? 1 : 0;
  }
  async pttl(key: string): Promise<number> {
    const entry = this.data.get(key);
    return entry && entry.expiresAt > this.now ? entry.expiresAt - this.now : -2;
  }
}

describe('RedisDedupeStore', () => {
  const setup = () => {
    const redis = new FakeRedis();
    return { redis, store: new RedisDedupeStore(redis, { ttlSeconds: 604_800, pendingTtlSeconds: 120 }) };
  };

  it('claims an event once; after completion duplicates are done for the whole TTL', async () => {
    const { redis, store } = setup();
    expect(await store.claim('e1')).toBe('claimed');
    expect(redis.data.has('notifier:invite:e1')).toBe(true);
    expect(await store.claim('e1')).toBe('in-progress');
    await store.complete('e1');
    expect(await store.claim('e1')).toBe('done');
    redis.now += 604_799_000;
    expect(await store.claim('e1')).toBe('done');
  });

  it('lets a retry claim again after a release', async () => {
    const { store } = setup();
    await store.claim('e1');
    await store.release('e1');
    expect(await store.claim('e1')).toBe('claimed');
  });

  it('frees a claim abandoned mid-send (process died) once the pending TTL is over', async () => {
    const { redis, store } = setup();
    await store.claim('e1');
    redis.now += 121_000;
    expect(await store.claim('e1')).toBe('claimed');
  });

  it('tells how long a claim still holds, and 0 once it holds no more', async () => {
    const { redis, store } = setup();
    await store.claim('e1');
    redis.now += 20_000;
    expect(await store.claimHeldForMs('e1')).toBe(100_000);
    redis.now += 100_000;
    expect(await store.claimHeldForMs('e1')).toBe(0);
  });
});
