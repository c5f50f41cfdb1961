import Redis from 'ioredis';
import { apiClient, requireEnv } from '@flowboard/testing';
import type { membership } from '@flowboard/proto';
import { startHarness, type Harness } from './support/boot';

// Board reads answered from each replica's memory (the response cache), kept exact across replicas by the
// board's version in Redis: two gateway replicas on one Redis, fake boards counting the calls that reach it.
let h: Harness;
let redis: Redis;
let replicaA: ReturnType<typeof apiClient>;
let replicaB: ReturnType<typeof apiClient>;
let owner: { user: membership.User__Output; key: string };
let outsider: { user: membership.User__Output; key: string };

beforeAll(async () => {
  h = await startHarness();
  redis = new Redis(requireEnv('REDIS_URL').REDIS_URL);
  replicaA = apiClient(h.baseUrl);
  replicaB = apiClient((await h.gateway()).baseUrl);
  owner = h.membership.addUser('Lindsay Fünke');
  outsider = h.membership.addUser('Steve Holt');
});
afterAll(async () => {
  redis.disconnect();
  await h.stop();
});

/** A new project with a board and `stories` stories, created through replica A. */
async function newBoard(stories = 2): Promise<string> {
  const project = h.membership.addProject(owner.user, `Board ${Math.random()}`);
  h.boards.board(project.project.id);
  const P = `/api/v1/projects/${project.project.id}`;
  for (let i = 1; i <= stories; i++) {
    const res = await replicaA(`${P}/stories`, {
      key: owner.key,
      method: 'POST',
      body: { text: `story ${i}` },
    });
    expect(res.status).toBe(200);
  }
  return P;
}

const listCalls = () => h.boards.calls.count('ListStories');
const texts = (res: { json?: { items: Array<{ text: string }> } }) => res.json?.items.map((s) => s.text);

describe('board reads from the response cache', () => {
  it('the same read again, in any spelling, is answered without asking boards', async () => {
    const P = await newBoard();
    const before = listCalls();
    const first = await replicaA(`${P}/stories?page=1&pageSize=10`, { key: owner.key });
    expect(first.status).toBe(200);
    expect(texts(first)).toEqual(['story 1', 'story 2']);
    const again = await Promise.all([
      replicaA(`${P}/stories?page=1&pageSize=10`, { key: owner.key }),
      replicaA(`${P}/stories?PAGESIZE=10&Page=1`, { key: owner.key }),
      replicaA(`${P}/stories?pageSize=10&apikey=${owner.key}&page=1`),
    ]);
    for (const res of again) {
      expect(res.status).toBe(200);
      expect(res.text).toBe(first.text);
    }
    expect(listCalls()).toBe(before + 1);
    // Another format is another answer.
    const xml = await replicaA(`${P}/stories.xml?page=1&pageSize=10`, { key: owner.key });
    expect(xml.headers.get('content-type')).toMatch(/xml/);
    expect(xml.text).toContain('<text>story 1</text>');
    expect(listCalls()).toBe(before + 2);
  });

  it('a change through one replica shows on the other’s very next read', async () => {
    const P = await newBoard();
    const read = () => replicaB(`${P}/stories/1`, { key: owner.key });
    expect((await read()).json.text).toBe('story 1');
    const gets = h.boards.calls.count('BatchGetStories');
    expect((await read()).json.text).toBe('story 1'); // from B's memory
    expect(h.boards.calls.count('BatchGetStories')).toBe(gets);

    const updated = await replicaA(`${P}/stories/1`, {
      key: owner.key,
      method: 'PUT',
      body: { text: 'renamed' },
    });
    expect(updated.status).toBe(200);
    expect((await read()).json.text).toBe('renamed');
    const created = await replicaA(`${P}/stories`, {
      key: owner.key,
      method: 'POST',
      body: { text: 'story 3' },
    });
    expect(created.status).toBe(200);
    expect(texts(await replicaB(`${P}/stories`, { key: owner.key }))).toEqual([
      'renamed',
      'story 2',
      'story 3',
    ]);
  });

  it('a write that fails at the gateway still makes the board’s cached reads stale', async () => {
    const P = await newBoard(1);
    const projectId = Number(P.split('/').pop());
    expect(texts(await replicaB(`${P}/stories`, { key: owner.key }))).toEqual(['story 1']);
    // The change lands in boards, but the gateway sees an error (as when a deadline passes after the commit).
    const story = h.boards.stories.get(`${projectId}:1`);
    if (!story) throw new Error('story 1 missing from the fake');
    story.text = 'landed';
    h.boards.calls.unavailable.add('UpdateStory');
    try {
      const failed = await replicaA(`${P}/stories/1`, {
        key: owner.key,
        method: 'PUT',
        body: { text: 'landed' },
      });
      expect(failed.status).toBe(503);
    } finally {
      h.boards.calls.unavailable.delete('UpdateStory');
    }
    expect(texts(await replicaB(`${P}/stories`, { key: owner.key }))).toEqual(['landed']);
  });

  it('a cached answer is still only for callers who may read the project', async () => {
    const P = await newBoard(1);
    expect((await replicaA(`${P}/stories`, { key: owner.key })).status).toBe(200);
    expect((await replicaA(`${P}/stories`, { key: outsider.key })).status).toBe(404);
    expect((await replicaA(`${P}/stories`)).status).toBe(401);
  });

  it('answers that run to now or match members are never cached', async () => {
    const P = await newBoard(1);
    for (const query of ['with=milestones', 'with=Steps,tags', 'with=everything', 'where=owner:lindsay']) {
      const before = listCalls();
      for (let i = 0; i < 2; i++) {
        expect((await replicaA(`${P}/stories?${query}`, { key: owner.key })).status).toBe(200);
      }
      expect({ query, calls: listCalls() - before }).toEqual({ query, calls: 2 });
    }
  });

  it('a board version lost from Redis starts again from the clock: no old answer comes back', async () => {
    const P = await newBoard(1);
    const projectId = Number(P.split('/').pop());
    const versionKey = `gateway:board-version:{${projectId}}`;
    expect(texts(await replicaA(`${P}/stories`, { key: owner.key }))).toEqual(['story 1']);
    const before = BigInt((await redis.get(versionKey)) ?? '0');
    expect(before).toBeGreaterThan(1_700_000_000_000_000n); // microseconds since 1970, not a counter from 1
    expect(await redis.ttl(versionKey)).toBeGreaterThan(0); // idle boards' counters go away
    await redis.del(versionKey); // as after a Redis restart without persistence
    const calls = listCalls();
    expect(texts(await replicaA(`${P}/stories`, { key: owner.key }))).toEqual(['story 1']);
    expect(listCalls()).toBe(calls + 1);
    expect(BigInt((await redis.get(versionKey)) ?? '0')).toBeGreaterThan(before);
  });

  it('an unauthenticated read makes no version key', async () => {
    const project = h.membership.addProject(owner.user, 'Never read');
    const P = `/api/v1/projects/${project.project.id}`;
    expect((await replicaA(`${P}/stories`)).status).toBe(401);
    expect((await replicaA(`${P}/stories`, { key: outsider.key })).status).toBe(404);
    expect(await redis.exists(`gateway:board-version:{${project.project.id}}`)).toBe(0);
  });

  it('without Redis, or with the cache turned off, every read asks boards', async () => {
    const P = await newBoard(1);
    const settings: Array<Record<string, string>> = [
      { REDIS_URL: 'redis://127.0.0.1:1' },
      { RESPONSE_CACHE_MB: '0' },
    ];
    for (const env of settings) {
      const replica = apiClient((await h.gateway(env)).baseUrl);
      const before = listCalls();
      expect((await replica(`${P}/stories`, { key: owner.key })).status).toBe(200);
      expect((await replica(`${P}/stories`, { key: owner.key })).status).toBe(200);
      expect(listCalls()).toBe(before + 2);
    }
  });
});
