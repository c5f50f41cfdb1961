import { apiClient, waitFor } from '@flowboard/testing';
import { startHarness, type Harness } from './support/boot';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

type Api = ReturnType<typeof apiClient>;
type Response = Awaited<ReturnType<Api>>;

/** A client address no other run or test uses (the gateways below trust X-Forwarded-For from loopback). */
const freshAddress = () =>
  `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

const limitHeaders = (res: Response) => ({
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
  policy: res.headers.get('ratelimit-policy'),
});

const expectRateLimited = (res: Response) => {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(res.json).toMatchObject({
    type: 'urn:flowboard:problem:rate-limited',
    status: 429,
    requestId: res.headers.get('x-request-id'),
  });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
};

describe('rate limiting per API key (docs/compat.md §3.3)', () => {
  let api: Api;
  beforeAll(async () => {
    api = apiClient((await h.gateway({ RATE_LIMIT_POINTS: '3', RATE_LIMIT_WINDOW_SECONDS: '60' })).baseUrl);
  });

  it('counts down in RateLimit-* headers, then answers 429 with Retry-After', async () => {
    const { key } = h.membership.addUser('Lucille Bluth');
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const res = await api('/api/v1/me', { key });
      expect(res.status).toBe(200);
      seen.push(limitHeaders(res));
      const reset = Number(res.headers.get('ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
    }
    expect(seen).toEqual(['2', '1', '0'].map((remaining) => ({ limit: '3', remaining, policy: '3;w=60' })));
    const over = await api('/api/v1/me', { key });
    expectRateLimited(over);
    expect(limitHeaders(over)).toEqual({ limit: '3', remaining: '0', policy: '3;w=60' });
    expect(over.headers.get('retry-after')).toBe(over.headers.get('ratelimit-reset'));
  });

  it('counts per key: one key over its limit does not slow down another', async () => {
    const a = h.membership.addUser('Buster Bluth');
    const b = h.membership.addUser('Lindsay Bluth');
    for (let i = 0; i < 3; i++) expect((await api('/api/v1/me', { key: a.key })).status).toBe(200);
    expectRateLimited(await api('/api/v1/me', { key: a.key }));
    expect((await api('/api/v1/me', { key: b.key })).status).toBe(200);
  });

  it('counts a key the same whichever way it is sent', async () => {
    const { key } = h.membership.addUser('Tobias Funke');
    expect((await api('/api/v1/me', { key })).status).toBe(200);
    expect((await api('/api/v1/me', { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await api(`/api/v1/me?apikey=${key.toUpperCase()}`)).status).toBe(200);
    expectRateLimited(await api('/api/v1/me', { key }));
  });

  it('checks 401 before 429, and 429 before the route (404) and project access', async () => {
    const { key } = h.membership.addUser('Kitty Sanchez');
    for (let i = 0; i < 3; i++) await api('/api/v1/me', { key });
    expect((await api('/api/v1/me', { key: 'f'.repeat(32) })).status).toBe(401);
    expectRateLimited(await api('/api/v1/no/such/route', { key }));
    expectRateLimited(await api('/api/v1/projects/999999999', { key }));
  });

  it('keeps the count in Redis, shared by every gateway replica', async () => {
    const other = apiClient((await h.gateway({ RATE_LIMIT_POINTS: '3' })).baseUrl);
    const { key } = h.membership.addUser('Ann Veal');
    expect((await api('/api/v1/me', { key })).status).toBe(200);
    expect((await other('/api/v1/me', { key })).status).toBe(200);
    expect((await api('/api/v1/me', { key })).status).toBe(200);
    expectRateLimited(await other('/api/v1/me', { key }));
  });

  it('starts a new window once the old one is over', async () => {
    const short = apiClient(
      (await h.gateway({ RATE_LIMIT_POINTS: '2', RATE_LIMIT_WINDOW_SECONDS: '2' })).baseUrl,
    );
    const { key } = h.membership.addUser('Steve Holt');
    // Until a 429: on a slow machine the first requests may straddle a window's end.
    let limited: Response | undefined;
    for (let i = 0; i < 10 && !limited; i++) {
      const res = await short('/api/v1/me', { key });
      if (res.status === 429) limited = res;
    }
    expectRateLimited(limited!);
    const again = await waitFor(
      async () => {
        const res = await short('/api/v1/me', { key });
        return res.status === 200 ? res : undefined;
      },
      5_000,
      'a new window',
    );
    expect(limitHeaders(again).remaining).toBe('1');
  });

  it('can be switched off: no headers, no 429', async () => {
    const off = apiClient((await h.gateway({ RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_POINTS: '1' })).baseUrl);
    const { key } = h.membership.addUser('Oscar Bluth');
    for (let i = 0; i < 3; i++) {
      const res = await off('/api/v1/me', { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
  });

  it('keeps serving while Redis is down, limiting in memory instead', async () => {
    const noRedis = apiClient(
      (await h.gateway({ REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_POINTS: '2' })).baseUrl,
    );
    const { key } = h.membership.addUser('Barry Zuckerkorn');
    const first = await noRedis('/api/v1/me', { key });
    expect(first.status).toBe(200);
    expect(limitHeaders(first)).toEqual({ limit: '2', remaining: '1', policy: '2;w=60' });
    expect((await noRedis('/api/v1/me', { key })).status).toBe(200);
    expectRateLimited(await noRedis('/api/v1/me', { key }));
  });
});

describe('rate limiting per client address before authentication', () => {
  let api: Api;
  beforeAll(async () => {
    api = apiClient((await h.gateway({ RATE_LIMIT_ANONYMOUS_POINTS: '3', TRUST_PROXY: 'loopback' })).baseUrl);
  });
  const from = (address: string, key?: string) => ({
    headers: { 'X-Forwarded-For': address, ...(key ? { 'X-Zen-ApiKey': key } : {}) },
  });

  it('failed authentications spend the budget; then the address gets 429, even with a valid key', async () => {
    const address = freshAddress();
    const { key } = h.membership.addUser('Marta Estrella');
    for (let i = 0; i < 3; i++)
      expect((await api('/api/v1/me', from(address, '0'.repeat(32)))).status).toBe(401);
    expect((await api('/api/v1/me', from(address))).status).toBe(401); // the 4th failure is still answered 401
    expectRateLimited(await api('/api/v1/me', from(address, '0'.repeat(32))));
    expectRateLimited(await api('/api/v1/me', from(address, key)));
    expect((await api('/api/v1/me', from(freshAddress(), key))).status).toBe(200);
  });

  it('valid keys never spend the address budget', async () => {
    const address = freshAddress();
    const { key } = h.membership.addUser('Rita Leeds');
    for (let i = 0; i < 6; i++) expect((await api('/api/v1/me', from(address, key))).status).toBe(200);
  });

  it('sign-ups spend it too', async () => {
    const address = freshAddress();
    const signUp = (n: number) =>
      api('/api/v1/users', {
        method: 'POST',
        ...from(address),
        body: { userName: `rl-${address}-${n}`.replace(/\./g, '-'), email: `rl${n}@example.test` },
      });
    for (let i = 0; i < 3; i++) expect((await signUp(i)).status).not.toBe(429);
    expectRateLimited(await signUp(3));
  });
});
