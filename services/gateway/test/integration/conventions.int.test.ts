import http from 'node:http';
import { apiClient } from '@flowboard/testing';
import { startHarness, type Harness } from './support/boot';

let h: Harness;
let api: ReturnType<typeof apiClient>;
let key: string;
let projectId: number;

beforeAll(async () => {
  h = await startHarness();
  api = apiClient(h.baseUrl);
  const gob = h.membership.addUser('Gob');
  key = gob.key;
  projectId = h.membership.addProject(gob.user, 'Sudden Valley').project.id;
});
afterAll(() => h.stop());

describe('HTTP conventions (docs/compat.md §1)', () => {
  it('every response has X-Request-Id; a sane incoming one is kept', async () => {
    expect((await api('/api/v1/me', { key })).headers.get('x-request-id')).toMatch(/^[0-9a-f]{16}$/);
    expect(
      (await api('/api/v1/me', { headers: { 'X-Request-Id': 'abc-123' } })).headers.get('x-request-id'),
    ).toBe('abc-123');
    expect(
      (await api('/api/v1/me', { key, headers: { 'X-Request-Id': 'bad id\u00e9' } })).headers.get(
        'x-request-id',
      ),
    ).toMatch(/^[0-9a-f]{16}$/);
  });

  it('ignores trailing and duplicate slashes; a .xml suffix picks XML and beats Accept', async () => {
    expect((await api('/api/v1//me/', { key })).status).toBe(200);
    const xml = await api('/api/v1/me.XML', { key, headers: { Accept: 'application/json' } });
    expect(xml.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(xml.text.startsWith('<?xml version="1.0" encoding="utf-8"?><user>')).toBe(true);
    expect((await api(`/api/v1/projects/${projectId}.json/`, { key })).json.id).toBe(projectId);
  });

  it('accepts absolute-form request targets', async () => {
    const { port } = new URL(h.baseUrl);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      http
        .request(
          { port, path: 'http://any.example/api/v1//me/', headers: { 'X-Zen-ApiKey': key } },
          (res) => {
            res.resume();
            resolve(res.statusCode);
          },
        )
        .on('error', reject)
        .end();
    });
    expect(status).toBe(200);
  });

  it('Accept q-values and the request Content-Type choose the format', async () => {
    const q = await api('/api/v1/me', { key, headers: { Accept: 'application/json;q=0.4, text/xml;q=0.9' } });
    expect(q.text.startsWith('<?xml')).toBe(true);
    const ct = await api('/api/v1/me', { key, headers: { 'Content-Type': 'application/xml' } });
    expect(ct.text.startsWith('<?xml')).toBe(true);
    const star = await api('/api/v1/me', { key, headers: { Accept: '*/*' } });
    expect(star.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('unknown routes and non-integer ids → 404 problem', async () => {
    const res = await api('/api/v1/nothing', { key });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ type: 'urn:flowboard:problem:not-found', status: 404 });
    expect((await api('/api/v1/projects/abc', { key })).status).toBe(404);
    expect((await api('/api/v1/projects/1.5/stories/1', { key })).status).toBe(404);
  });

  it('a wrong method → 405 with Allow, as XML when asked', async () => {
    const res = await api(`/api/v1/projects/${projectId}/stories`, {
      key,
      method: 'DELETE',
      headers: { Accept: 'text/xml' },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST, PUT, OPTIONS');
    expect(res.text).toMatch(
      /^<\?xml version="1\.0" encoding="utf-8"\?><error><detail>.*<\/detail><requestId>[0-9a-f]{16}<\/requestId><status>405<\/status><title>Method not allowed<\/title><type>urn:flowboard:problem:method-not-allowed<\/type><\/error>$/,
    );
  });

  it('HEAD works like GET without a body', async () => {
    const get = await api('/api/v1/me', { key });
    const head = await api('/api/v1/me', { key, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('OPTIONS is a preflight: 200 with CORS headers, no key needed', async () => {
    const res = await api(`/api/v1/projects/${projectId}/stories`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'X-Zen-ApiKey, Authorization, Content-Type, Accept',
    );
    expect(res.headers.get('access-control-expose-headers')).toBe(
      'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Flowboard-Changes',
    );
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect((await api('/api/v1/me', { key })).headers.get('access-control-allow-origin')).toBe('*');
  });

  it("OPTIONS lists exactly the path's methods in Allow; an unknown path is not the API's", async () => {
    const stories = await api(`/api/v1/projects/${projectId}/stories`, { method: 'OPTIONS' });
    expect(stories.headers.get('allow')).toBe('GET, HEAD, POST, PUT, OPTIONS');
    expect(stories.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, PUT, OPTIONS');
    const admin = await api('/api/v1/admin/users/1', { method: 'OPTIONS' });
    expect([admin.status, admin.headers.get('allow')]).toEqual([200, 'PUT, OPTIONS']);
    const unknown = await api('/api/v1/nowhere', { method: 'OPTIONS', key });
    expect(unknown.status).toBe(404);
  });

  it('malformed JSON → 400 invalid-body', async () => {
    const res = await api('/api/v1/projects', {
      key,
      method: 'POST',
      body: '{"name": "x",',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ type: 'urn:flowboard:problem:invalid-body', status: 400 });
  });

  it('XML with a DOCTYPE → 400, answered in XML', async () => {
    const res = await api('/api/v1/projects', {
      key,
      method: 'POST',
      body: '<?xml version="1.0"?><!DOCTYPE p [<!ENTITY x SYSTEM "file:///etc/passwd">]><project><name>&x;</name></project>',
      headers: { 'Content-Type': 'application/xml' },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(res.text).toContain('<type>urn:flowboard:problem:invalid-body</type>');
  });

  it('multipart outside uploads → 400; bodies over the limit → 413', async () => {
    const form = new FormData();
    form.append('name', 'x');
    expect((await api('/api/v1/projects', { key, method: 'POST', body: form })).status).toBe(400);
    const big = await api('/api/v1/projects', { key, method: 'POST', body: { name: 'x'.repeat(1_100_000) } });
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ type: 'urn:flowboard:problem:payload-too-large' });
  });

  it('an unknown enrichment → 400 naming it', async () => {
    const res = await api(`/api/v1/projects/${projectId}?with=phases,colour`, { key });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      type: 'urn:flowboard:problem:unknown-enrichment',
      detail: "Unknown enrichment 'colour'.",
    });
  });

  it('an upstream that is UNAVAILABLE → 503', async () => {
    h.boards.calls.unavailable.add('ListPhases');
    try {
      const res = await api(`/api/v1/projects/${projectId}?with=phases`, { key });
      expect(res.status).toBe(503);
      expect(res.json).toMatchObject({ type: 'urn:flowboard:problem:unavailable', status: 503 });
    } finally {
      h.boards.calls.unavailable.delete('ListPhases');
    }
  });
});

describe('health', () => {
  it('/livez is 200 and /readyz is 200 when Redis and all peers answer', async () => {
    expect((await fetch(`${h.baseUrl}/livez`)).status).toBe(200);
    expect((await fetch(`${h.baseUrl}/readyz`)).status).toBe(200);
  });

  // Issue 26 changed the contract: readiness depends on no dependency (docs/design.md, "Failure isolation"); it was
  // 503 here before. The peer's operations answer 503 instead.
  it('/readyz stays 200 when a peer is unreachable; its operations answer 503', async () => {
    const other = await h.gateway({ FILES_ADDR: '127.0.0.1:1' });
    expect((await fetch(`${other.baseUrl}/livez`)).status).toBe(200);
    expect((await fetch(`${other.baseUrl}/readyz`)).status).toBe(200);
    const res = await apiClient(other.baseUrl)('/api/v1/me/account', { key });
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ type: 'urn:flowboard:problem:unavailable', status: 503 });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  // Was: /readyz 503 without Redis (changed by issue 26, as above).
  it('without Redis the API still answers (cache misses) and /readyz stays 200', async () => {
    const other = await h.gateway({ REDIS_URL: 'redis://127.0.0.1:1' });
    const res = await apiClient(other.baseUrl)('/api/v1/me', { key });
    expect(res.status).toBe(200);
    expect((await fetch(`${other.baseUrl}/readyz`)).status).toBe(200);
  });
});
