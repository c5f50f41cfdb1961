import { createLogger } from '@flowboard/service-kit';
import { fakeEpochRedis } from '../../test/unit/fake-epoch-redis';
import type { RenderedBody } from '../wire/respond';
import { CacheEpoch } from './epoch';
import { ResponseCache, type CacheOutcome } from './response-cache';

function fakeEpoch() {
  const { server, redis } = fakeEpochRedis();
  return { server, epoch: new CacheEpoch(redis, createLogger('test', 'silent')) };
}

const body = (text: string): RenderedBody => ({ contentType: 'application/json', body: text });

async function setUp(limits = { maxBytes: 1_000_000, ttlMs: 60_000 }) {
  const { server, epoch } = fakeEpoch();
  const outcomes: CacheOutcome[] = [];
  const cache = new ResponseCache(epoch, limits, (outcome) => outcomes.push(outcome));
  await epoch.refresh();
  let renders = 0;
  /** Reads `key` of board `projectId` at `version`; renders `text` when the cache can't answer. */
  const read = (projectId: number, version: string | undefined, key: string, text = `${key}@${version}`) =>
    cache
      .through(projectId, version, key, async () => {
        renders++;
        return body(text);
      })
      .then((r) => r.body);
  return { server, epoch, cache, outcomes, read, renders: () => renders };
}

describe('ResponseCache', () => {
  it('renders once per board version and key, then answers from memory', async () => {
    const { read, renders, outcomes } = await setUp();
    expect(await read(1, '10', 'page1')).toBe('page1@10');
    expect(await read(1, '10', 'page1', 'other')).toBe('page1@10');
    expect(await read(1, '10', 'page2')).toBe('page2@10');
    expect(await read(2, '10', 'page1')).toBe('page1@10');
    expect(renders()).toBe(3);
    expect(outcomes).toEqual(['miss', 'hit', 'miss', 'miss']);
  });

  it('a new version of the board renders again, and the old version’s answer is never served again', async () => {
    const { read, renders, cache } = await setUp();
    await read(1, '10', 'page1');
    const one = cache.size;
    expect(await read(1, '11', 'page1')).toBe('page1@11');
    expect(await read(1, '11', 'page1')).toBe('page1@11');
    expect(await read(1, '10', 'page1')).toBe('page1@10'); // a request that read the old version renders
    expect(renders()).toBe(3);
    expect(cache.size).toBe(one); // the newer answer replaced the older one
  });

  it('a slow render of an older version does not displace the newer one', async () => {
    const { cache, read, renders } = await setUp();
    let finishOld: (b: RenderedBody) => void = () => undefined;
    const old = cache.through(1, '10', 'page1', () => new Promise((resolve) => (finishOld = resolve)));
    await read(1, '11', 'page1');
    finishOld(body('stale'));
    expect((await old).body).toBe('stale'); // its own request gets what it rendered...
    expect(await read(1, '11', 'page1')).toBe('page1@11'); // ...but version 11 keeps its answer
    expect(await read(1, '10', 'page1')).toBe('page1@10'); // and 10 is not served from memory any more
    expect(renders()).toBe(2);
  });

  it('requests for the same answer at the same time share one render', async () => {
    const { cache, outcomes } = await setUp();
    let renders = 0;
    let finish: (b: RenderedBody) => void = () => undefined;
    const render = () => {
      renders++;
      return new Promise<RenderedBody>((resolve) => (finish = resolve));
    };
    const reads = [1, 2, 3].map(() => cache.through(1, '10', 'page1', render));
    finish(body('shared'));
    expect((await Promise.all(reads)).map((r) => r.body)).toEqual(['shared', 'shared', 'shared']);
    expect(renders).toBe(1);
    expect(outcomes).toEqual(['miss', 'shared', 'shared']);
  });

  it('a failed render is every waiting request’s error, and nothing is kept', async () => {
    const { cache, read } = await setUp();
    const failing = () => Promise.reject(new Error('boards unavailable'));
    const reads = [cache.through(1, '10', 'p', failing), cache.through(1, '10', 'p', failing)];
    await expect(Promise.all(reads)).rejects.toThrow('boards unavailable');
    await expect(reads[1]).rejects.toThrow('boards unavailable');
    expect(await read(1, '10', 'p', 'fresh')).toBe('fresh');
  });

  it('empties when the cache epoch moves (a user renamed, access revoked)', async () => {
    const { read, renders, epoch, server } = await setUp();
    await read(1, '10', 'page1');
    server.epoch = '1001';
    await epoch.refresh();
    expect(await read(1, '10', 'page1')).toBe('page1@10');
    expect(renders()).toBe(2);
  });

  it('keeps nothing rendered while the epoch moved underneath', async () => {
    const { cache, read, renders, epoch } = await setUp();
    await cache.through(1, '10', 'page1', async () => {
      await epoch.advance(); // a rename lands while boards answers
      return body('maybe the old name');
    });
    expect(await read(1, '10', 'page1')).toBe('page1@10');
    expect(renders()).toBe(1); // the first render was the inline one above; this one rendered again
  });

  it('without a version or a readable epoch, every read renders', async () => {
    const { read, renders, server, epoch, outcomes } = await setUp();
    await read(1, undefined, 'page1');
    await read(1, undefined, 'page1');
    server.up = false;
    await epoch.refresh();
    await read(1, '10', 'page1');
    await read(1, '10', 'page1');
    expect(renders()).toBe(4);
    expect(outcomes).toEqual(['bypass', 'bypass', 'bypass', 'bypass']);
  });

  it('with a budget of 0 it keeps nothing', async () => {
    const { read, renders } = await setUp({ maxBytes: 0, ttlMs: 60_000 });
    await read(1, '10', 'page1');
    await read(1, '10', 'page1');
    expect(renders()).toBe(2);
  });

  it('over its budget, the answers stored longest ago go first', async () => {
    // Each body is 10 characters = 20 bytes; room for three.
    const { read, renders } = await setUp({ maxBytes: 60, ttlMs: 60_000 });
    await read(1, '10', 'a', 'aaaaaaaaaa');
    await read(2, '10', 'b', 'bbbbbbbbbb');
    await read(1, '10', 'c', 'cccccccccc');
    await read(1, '11', 'a', 'AAAAAAAAAA'); // replaces a@10: stored last now
    await read(2, '10', 'd', 'dddddddddd'); // 80 bytes: b, stored longest ago, goes
    expect(renders()).toBe(5);
    await read(1, '10', 'c');
    await read(1, '11', 'a');
    await read(2, '10', 'd');
    expect(renders()).toBe(5); // all three still held
    await read(2, '10', 'b', 'bbbbbbbbbb');
    expect(renders()).toBe(6);
  });

  it('counts what is kept with an answer (its compressed copies) against the budget, while the answer stays', async () => {
    // Room for three 20-byte bodies.
    const { cache, read, renders } = await setUp({ maxBytes: 60, ttlMs: 60_000 });
    const a = await cache.through(1, '10', 'a', async () => body('aaaaaaaaaa'));
    await read(1, '10', 'b', 'bbbbbbbbbb');
    expect(cache.size).toBe(40);
    cache.charge(1, 'a', a, 5);
    expect(cache.size).toBe(45);
    await read(1, '10', 'c', 'cccccccccc'); // 65 bytes: a, stored first, goes with its copy
    expect(cache.size).toBe(40);
    cache.charge(1, 'a', a, 5); // a copy made for an answer no longer kept counts for nothing
    cache.charge(1, 'b', body('never stored'), 5);
    expect(cache.size).toBe(40);
    const b = await cache.through(1, '10', 'b', async () => body('rendered again'));
    expect(b.body).toBe('bbbbbbbbbb');
    cache.charge(1, 'b', b, 30); // 70 bytes: the oldest (b itself) goes
    expect(cache.size).toBe(20);
    await read(1, '10', 'b', 'bbbbbbbbbb');
    expect(renders()).toBe(3); // b, c, and b again: it was evicted
  });

  it('never keeps a body larger than the whole budget', async () => {
    const { read, renders, cache } = await setUp({ maxBytes: 10, ttlMs: 60_000 });
    await read(1, '10', 'big', 'more than five');
    await read(1, '10', 'big', 'more than five');
    expect(renders()).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('forgets an answer after its TTL', async () => {
    jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate'] });
    try {
      const { read, renders } = await setUp({ maxBytes: 1_000_000, ttlMs: 1_000 });
      await read(1, '10', 'page1');
      jest.setSystemTime(999);
      await read(1, '10', 'page1');
      expect(renders()).toBe(1);
      jest.setSystemTime(1_000);
      await read(1, '10', 'page1');
      expect(renders()).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });
});
