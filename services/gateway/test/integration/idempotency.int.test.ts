import { randomBytes } from 'node:crypto';
import http from 'node:http';
import Redis from 'ioredis';
import { apiClient, requireEnv } from '@flowboard/testing';
import type { membership } from '@flowboard/proto';
import { startHarness, type Harness } from './support/boot';

let h: Harness;
let api: ReturnType<typeof apiClient>;
let gob: { user: membership.User__Output; key: string };
let lucille: { user: membership.User__Output; key: string };
let projectId: number;
let redis: Redis;

beforeAll(async () => {
  h = await startHarness();
  api = apiClient(h.baseUrl);
  gob = h.membership.addUser('Gob Bluth');
  lucille = h.membership.addUser('Lucille Bluth');
  const project = h.membership.addProject(gob.user, 'Sudden Valley');
  h.membership.grant(project, lucille.user, 'ACCESS_READWRITE');
  projectId = project.project.id;
  h.boards.board(projectId);
  redis = new Redis(requireEnv('REDIS_URL').REDIS_URL);
});
afterAll(async () => {
  redis?.disconnect();
  await h?.stop();
});

const P = () => `/api/v1/projects/${projectId}`;
const newKey = () => `"${crypto.randomUUID()}"`;
const createStory = (key: string, body: unknown, base = api) =>
  base(`${P()}/stories`, { key: gob.key, method: 'POST', body, headers: { 'Idempotency-Key': key } });

describe('Idempotency-Key on writes (real Redis, fake boards)', () => {
  it('a retry gets the first answer again, marked as replayed, and the story is created once', async () => {
    const key = newKey();
    const before = h.boards.calls.count('CreateStory');
    const first = await createStory(key, { text: 'Banana stand' });
    const retry = await createStory(key, { text: 'Banana stand' });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(h.boards.calls.count('CreateStory')).toBe(before + 1);
  });

  it('the same key with a different body is 422 and runs nothing', async () => {
    const key = newKey();
    expect((await createStory(key, { text: 'Seal' })).status).toBe(200);
    const calls = h.boards.calls.count('CreateStory');
    const reused = await createStory(key, { text: 'Loose seal' });
    expect(reused.status).toBe(422);
    expect(reused.json.type).toBe('urn:flowboard:problem:idempotency-key-reused');
    const otherPath = await api(`${P()}/phases`, {
      key: gob.key,
      method: 'POST',
      body: { text: 'Seal' },
      headers: { 'Idempotency-Key': key },
    });
    expect(otherPath.status).toBe(422);
    expect(h.boards.calls.count('CreateStory')).toBe(calls);
  });

  it('keys are per caller: another user with the same key runs their own request', async () => {
    const key = newKey();
    const mine = await createStory(key, { text: 'Hop-on' });
    const theirs = await api(`${P()}/stories`, {
      key: lucille.key,
      method: 'POST',
      body: { text: 'Hop-on' },
      headers: { 'Idempotency-Key': key },
    });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.json.id).not.toBe(mine.json.id);
  });

  it('a retry while the first is still running is 409; after it, the retry replays', async () => {
    const key = newKey();
    const release = h.boards.calls.hold('CreateStory');
    const calls = h.boards.calls.count('CreateStory');
    const first = createStory(key, { text: 'Slow' });
    await waitFor(() => h.boards.calls.count('CreateStory') === calls + 1);
    const during = await createStory(key, { text: 'Slow' });
    expect(during.status).toBe(409);
    expect(during.json.type).toBe('urn:flowboard:problem:idempotent-request-in-progress');
    release();
    expect((await first).status).toBe(200);
    const after = await createStory(key, { text: 'Slow' });
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.json.id).toBe((await first).json.id);
    expect(h.boards.calls.count('CreateStory')).toBe(calls + 1);
  });

  it('another replica, and a replica started after the first stopped, replay the answer from Redis', async () => {
    const key = newKey();
    const replicaA = await h.gateway();
    const first = await createStory(key, { text: 'Across' }, apiClient(replicaA.baseUrl));
    await replicaA.app.stop();
    const replicaB = await h.gateway();
    const retry = await createStory(key, { text: 'Across' }, apiClient(replicaB.baseUrl));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
  });

  it('a client error is kept and replayed; a 5xx is not, so the retry runs again', async () => {
    const badKey = newKey();
    const bad = await createStory(badKey, { text: '' });
    expect(bad.status).toBe(400);
    const badAgain = await createStory(badKey, { text: '' });
    expect(badAgain.status).toBe(400);
    expect(badAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(badAgain.text).toBe(bad.text);

    const key = newKey();
    h.boards.calls.unavailable.add('CreateStory');
    const down = await createStory(key, { text: 'Down' });
    h.boards.calls.unavailable.delete('CreateStory');
    expect(down.status).toBe(503);
    const calls = h.boards.calls.count('CreateStory');
    const up = await createStory(key, { text: 'Down' });
    expect(up.status).toBe(200);
    expect(up.headers.get('idempotent-replayed')).toBeNull();
    expect(h.boards.calls.count('CreateStory')).toBe(calls + 1);
  });

  it('XML writes replay as XML; a story move replays without moving twice', async () => {
    const key = newKey();
    const xml = '<story><text>In XML</text></story>';
    const send = () =>
      api(`${P()}/stories`, {
        key: gob.key,
        method: 'POST',
        body: xml,
        headers: { 'Idempotency-Key': key, 'Content-Type': 'application/xml', Accept: 'application/xml' },
      });
    const first = await send();
    const retry = await send();
    expect(first.headers.get('content-type')).toMatch(/xml/);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');

    const story = (await createStory(newKey(), { text: 'Mover' })).json as { id: number };
    const phases = (await api(`${P()}/phases`, { key: gob.key })).json.items as Array<{ id: number }>;
    const moveKey = newKey();
    const move = () =>
      api(`${P()}/stories/${story.id}`, {
        key: gob.key,
        method: 'PUT',
        body: { phase: phases[1]!.id },
        headers: { 'Idempotency-Key': moveKey },
      });
    const updates = h.boards.calls.count('UpdateStory');
    expect((await move()).status).toBe(200);
    expect((await move()).headers.get('idempotent-replayed')).toBe('true');
    expect(h.boards.calls.count('UpdateStory')).toBe(updates + 1);
  });

  it('Redis holds neither the key nor the answer in the clear', async () => {
    const key = `plain-key-${Date.now()}`;
    expect((await createStory(key, { text: 'Secret banana' })).status).toBe(200);
    const stored = await Promise.all(
      (await redis.keys('idempotency:*')).map(async (k) => `${k} ${await redis.get(k)}`),
    );
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.some((entry) => entry.includes('Secret banana') || entry.includes(key))).toBe(false);
  });

  it('a malformed key is 400; routes that take no key ignore it', async () => {
    for (const malformed of ['""', `"${'k'.repeat(256)}"`, '"caf\u00e9"']) {
      const bad = await createStory(malformed, { text: 'x' });
      expect(bad.status).toBe(400);
      expect(bad.json.type).toBe('urn:flowboard:problem:invalid-parameter');
    }
    const read = await api(`${P()}/stories`, { key: gob.key, headers: { 'Idempotency-Key': newKey() } });
    expect(read.status).toBe(200);
  });
});

describe('Idempotency-Key on uploads (multipart, streamed to a fake files)', () => {
  let storyId: number;
  beforeAll(async () => {
    storyId = (await createStory(newKey(), { text: 'Has plans' })).json.id as number;
  });
  const path = () => `${P()}/stories/${storyId}/attachments`;
  const plans = randomBytes(300_000); // several chunks on the way
  /** The same upload each time, under a boundary of the caller's choosing (as clients pick a new one per request). */
  const form = (boundary: string, content = plans, fileName = 'plans.bin') =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="${fileName}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      content,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
  const upload = (key: string, boundary: string, body = form(boundary)) =>
    api(path(), {
      key: gob.key,
      method: 'POST',
      body: new Uint8Array(body),
      headers: { 'Idempotency-Key': key, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    });

  it('a retry with a new boundary gets the first answer again; the bytes reached files once', async () => {
    const key = newKey();
    const received = h.files.received.length;
    const first = await upload(key, 'first-boundary');
    const retry = await upload(key, 'retry-boundary-0123456789');
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(h.files.received.length).toBe(received + 1);
    expect(h.files.received.at(-1)!.body.equals(form('first-boundary'))).toBe(true);
  });

  it('the same key with other parts (content or file name) is 422, and files gets nothing', async () => {
    const key = newKey();
    expect((await upload(key, 'b1')).status).toBe(200);
    const received = h.files.received.length;
    const otherContent = Buffer.from(plans);
    otherContent.writeUInt8(otherContent.readUInt8(150_000) ^ 1, 150_000);
    for (const other of [form('b2', otherContent), form('b2', plans, 'plans2.bin')]) {
      const reused = await upload(key, 'b2', other);
      expect(reused.status).toBe(422);
      expect(reused.json.type).toBe('urn:flowboard:problem:idempotency-key-reused');
    }
    expect(h.files.received.length).toBe(received);
  });

  it('a refusal files answers before the body arrived (402) is kept once the body has all arrived', async () => {
    const key = newKey();
    h.files.refuseNextUpload = {
      status: 402,
      body: { kind: 'PlanLimitExceeded', problem: 'plan-limit', message: 'Storage limit reached.' },
      early: true,
    };
    const started = h.files.uploadsStarted;
    const refused = await rawUpload(key, 'early', form('early'));
    expect(refused.status).toBe(402);
    // The answer can reach the client before the rest of its body has reached the gateway (the socket still
    // sending it): until then the key is in progress, and a retry is told so (409) and tries again.
    let retry = await upload(key, 'early-again');
    for (let i = 0; i < 50 && retry.status === 409; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      retry = await upload(key, 'early-again');
    }
    expect(retry.status).toBe(402);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(h.files.uploadsStarted).toBe(started + 1);
  });

  it('an upload cut short frees its key at once (not after the lease): the retry runs', async () => {
    const key = newKey();
    const started = h.files.uploadsStarted;
    const body = form('cut');
    const cut = rawUpload(key, 'cut', body.subarray(0, 100_000), body.length);
    const hungUp = cut.catch(() => 'hung up');
    await waitFor(() => h.files.uploadsStarted === started + 1); // the gateway is streaming it to files
    cut.abort();
    expect(await hungUp).toBe('hung up');
    const received = h.files.received.length;
    let retry = await upload(key, 'cut-retry');
    for (let i = 0; i < 50 && retry.status === 409; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      retry = await upload(key, 'cut-retry');
    }
    expect(retry.status).toBe(200); // well within the 30 s lease
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(h.files.received.length).toBe(received + 1);
  });

  /**
   * An upload over a plain connection: the whole of `body` is written before the answer is read (fetch may stop
   * sending once an answer comes); with `declaredLength` larger than the body, it stays unfinished until aborted.
   */
  function rawUpload(key: string, boundary: string, body: Buffer, declaredLength = body.length) {
    const url = new URL(path(), h.baseUrl);
    const request = http.request(url, {
      method: 'POST',
      headers: {
        'X-Zen-ApiKey': gob.key,
        'Idempotency-Key': key,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': declaredLength,
      },
    });
    const answered = new Promise<{ status: number }>((resolve, reject) => {
      request.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      });
      request.on('error', reject);
    });
    request.write(body);
    if (declaredLength === body.length) request.end();
    return Object.assign(answered, { abort: () => request.destroy() });
  }
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}
