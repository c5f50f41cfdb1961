import { GATEWAY_URL, signUp } from './support';

/**
 * Rate limiting through the real stack (docs/compat.md §3.3): counters in the stack's Redis, the gateway's
 * default limits. Only this file's own key and its own client address (X-Forwarded-For, which the local
 * gateway trusts from loopback) reach a limit, so no other test file is slowed down.
 */
jest.setTimeout(60_000);

interface Sent {
  status: number;
  headers: Headers;
  body: string;
}

async function get(path: string, headers: Record<string, string>): Promise<Sent> {
  const res = await fetch(`${GATEWAY_URL}${path}`, { headers });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** `count` requests, `parallel` at a time; the answers in the order they completed. */
async function burst(count: number, parallel: number, send: () => Promise<Sent>): Promise<Sent[]> {
  const done: Sent[] = [];
  let started = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (started < count) {
        started++;
        done.push(await send());
      }
    }),
  );
  return done;
}

const freshAddress = () => `198.18.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

it('a key over its limit gets 429 with Retry-After; RateLimit-* headers on every answer; other keys go on', async () => {
  const heavy = await signUp('rl-heavy');
  const light = await signUp('rl-light');
  const first = await get('/api/v1/me', { 'X-Zen-ApiKey': heavy.key });
  expect(first.status).toBe(200);
  const limit = Number(first.headers.get('ratelimit-limit'));
  expect(limit).toBeGreaterThanOrEqual(100); // generous by default
  expect(Number(first.headers.get('ratelimit-remaining'))).toBe(limit - 1);
  expect(first.headers.get('ratelimit-policy')).toMatch(new RegExp(`^${limit};w=\\d+$`));
  expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);

  // An unknown route after authentication: cheap, and still counted and labelled (429 comes before 404).
  const answers = await burst(limit + 5, 16, () =>
    get('/api/v1/no-such-thing', { 'X-Zen-ApiKey': heavy.key }),
  );
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 404)).toHaveLength(limit - 1);
  expect(statuses.filter((s) => s === 429)).toHaveLength(6);
  for (const a of answers) expect(a.headers.get('ratelimit-limit')).toBe(String(limit));

  const limited = await get('/api/v1/me', { 'X-Zen-ApiKey': heavy.key, Accept: 'application/xml' });
  expect(limited.status).toBe(429);
  const retryAfter = Number(limited.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(limited.headers.get('ratelimit-remaining')).toBe('0');
  expect(limited.body).toContain('<type>urn:flowboard:problem:rate-limited</type>');

  const other = await get('/api/v1/me', { 'X-Zen-ApiKey': light.key });
  expect(other.status).toBe(200);
  expect(Number(other.headers.get('ratelimit-remaining'))).toBe(limit - 1);
});

it('an address that keeps failing authentication gets 429 before its keys are even looked at', async () => {
  const address = freshAddress();
  const user = await signUp('rl-address');
  const wrongKey = { 'X-Forwarded-For': address, 'X-Zen-ApiKey': '0'.repeat(32) };
  const answers = await burst(700, 16, () => get('/api/v1/me', wrongKey));
  const statuses = new Set(answers.map((a) => a.status));
  expect([...statuses].sort()).toEqual([401, 429]);
  const blocked = await get('/api/v1/me', { 'X-Forwarded-For': address, 'X-Zen-ApiKey': user.key });
  expect(blocked.status).toBe(429);
  expect(JSON.parse(blocked.body)).toMatchObject({ type: 'urn:flowboard:problem:rate-limited', status: 429 });
  expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

  // The same key from any other address is fine: only the failing address is held back.
  expect(
    (await get('/api/v1/me', { 'X-Forwarded-For': freshAddress(), 'X-Zen-ApiKey': user.key })).status,
  ).toBe(200);
});
