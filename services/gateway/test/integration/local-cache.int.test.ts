import Redis from 'ioredis';
import { apiClient, requireEnv } from '@flowboard/testing';
import type { membership } from '@flowboard/proto';
import { apiKeyHash } from '../../src/authz/credentials';
import { startHarness, type Harness } from './support/boot';

// Two gateway replicas on one Redis: each keeps keys, access decisions and users in its own memory, and the
// cache epoch must make every revocation hold on the very next request on BOTH of them.
let h: Harness;
let redis: Redis;
let replicaA: ReturnType<typeof apiClient>;
let replicaB: ReturnType<typeof apiClient>;

beforeAll(async () => {
  h = await startHarness();
  redis = new Redis(requireEnv('REDIS_URL').REDIS_URL);
  replicaA = apiClient(h.baseUrl);
  replicaB = apiClient((await h.gateway()).baseUrl);
});
afterAll(async () => {
  redis.disconnect();
  await h.stop();
});

const P = (projectId: number) => `/api/v1/projects/${projectId}`;

/** Drops a key's Redis entry WITHOUT advancing the epoch: only a replica's own memory can still answer. */
const dropRedisEntry = (key: string) => redis.del(`gateway:apikey:v2:{${apiKeyHash(key)}}`);

describe('decisions cached in each replica (kept exact by the cache epoch)', () => {
  it('a replica answers a known key from its own memory: no Redis entry, no membership call', async () => {
    const { key } = h.membership.addUser('Maeby Fünke');
    expect((await replicaB('/api/v1/me', { key })).status).toBe(200);
    await dropRedisEntry(key);
    const before = h.membership.calls.count('AuthenticateApiKey');
    expect((await replicaB('/api/v1/me', { key })).status).toBe(200);
    expect(h.membership.calls.count('AuthenticateApiKey')).toBe(before);
    // The other replica never saw the key: it has to ask membership.
    expect((await replicaA('/api/v1/me', { key })).status).toBe(200);
    expect(h.membership.calls.count('AuthenticateApiKey')).toBe(before + 1);
  });

  it('a key deleted through one replica is refused by the other on its very next request', async () => {
    const { key, keyId } = h.membership.addUser('George Michael Bluth');
    expect((await replicaB('/api/v1/me', { key })).status).toBe(200);
    expect((await replicaB('/api/v1/me', { key })).status).toBe(200); // now in B's memory
    expect((await replicaA(`/api/v1/me/apikeys/${keyId}`, { key, method: 'DELETE' })).status).toBe(200);
    expect((await replicaB('/api/v1/me', { key })).status).toBe(401);
  });

  it('a member removed through one replica gets 404 from the other on the next request', async () => {
    const owner = h.membership.addUser('Lucille Bluth');
    const member = h.membership.addUser('Buster Bluth');
    const project = h.membership.addProject(owner.user, 'Balboa Towers');
    h.membership.grant(project, member.user, 'ACCESS_READ');
    const projectId = project.project.id;
    h.boards.board(projectId);
    expect((await replicaB(`${P(projectId)}/stories`, { key: member.key })).status).toBe(200);
    const before = h.membership.calls.count('GetProjectAccess');
    expect((await replicaB(`${P(projectId)}/stories`, { key: member.key })).status).toBe(200);
    expect(h.membership.calls.count('GetProjectAccess')).toBe(before); // cached

    const removed = await replicaA(`${P(projectId)}/members/${member.user.id}`, {
      key: owner.key,
      method: 'DELETE',
    });
    expect(removed.status).toBe(200);
    expect((await replicaB(`${P(projectId)}/stories`, { key: member.key })).status).toBe(404);
  });

  it('a user renamed through one replica is shown renamed by the other on its next response', async () => {
    const owner = h.membership.addUser('Tobias Fünke');
    const project = h.membership.addProject(owner.user, 'Blue Man Group');
    const projectId = project.project.id;
    h.boards.board(projectId);
    const created = await replicaA(`${P(projectId)}/stories`, {
      key: owner.key,
      method: 'POST',
      body: { text: 'audition' },
    });
    expect(created.status).toBe(200);
    const storyId = (created.json as { id: number }).id;
    const creatorName = async () =>
      (
        (await replicaB(`${P(projectId)}/stories/${storyId}`, { key: owner.key })).json as {
          creator: membership.User__Output;
        }
      ).creator.name;
    expect(await creatorName()).toBe('Tobias Fünke');
    expect(await creatorName()).toBe('Tobias Fünke'); // from B's memory now

    const renamed = await replicaA('/api/v1/me', {
      key: owner.key,
      method: 'PUT',
      body: { name: 'Mrs. Featherbottom' },
    });
    expect(renamed.status).toBe(200);
    expect(await creatorName()).toBe('Mrs. Featherbottom');
  });

  it('an epoch lost from Redis starts again from the server clock, so it never repeats an old value', async () => {
    const { key } = h.membership.addUser('Kitty Sanchez');
    expect((await replicaA('/api/v1/me', { key })).status).toBe(200);
    const before = BigInt((await redis.get('gateway:cache-epoch')) ?? '0');
    await redis.del('gateway:cache-epoch'); // as after a Redis restart without persistence
    expect((await replicaA('/api/v1/me', { key })).status).toBe(200);
    const after = BigInt((await redis.get('gateway:cache-epoch')) ?? '0');
    expect(after).toBeGreaterThan(before);
    // Microseconds since 1970: the clock part, not a counter restarted from 1.
    expect(after).toBeGreaterThan(1_700_000_000_000_000n);
  });

  it('without Redis, nothing is served from memory: every request asks membership', async () => {
    const offline = apiClient((await h.gateway({ REDIS_URL: 'redis://127.0.0.1:1' })).baseUrl);
    const { key } = h.membership.addUser('Oscar Bluth');
    const before = h.membership.calls.count('AuthenticateApiKey');
    expect((await offline('/api/v1/me', { key })).status).toBe(200);
    expect((await offline('/api/v1/me', { key })).status).toBe(200);
    expect(h.membership.calls.count('AuthenticateApiKey')).toBe(before + 2);
  });
});
