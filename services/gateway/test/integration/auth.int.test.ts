import { apiClient } from '@flowboard/testing';
import { startHarness, type Harness } from './support/boot';

let h: Harness;
let api: ReturnType<typeof apiClient>;
let gob: { id: number; key: string; keyId: number };

beforeAll(async () => {
  h = await startHarness();
  api = apiClient(h.baseUrl);
  const { user, key, keyId } = h.membership.addUser('Gob Bluth');
  gob = { id: user.id, key, keyId };
});
afterAll(() => h.stop());

const expectUnauthorized = (res: Awaited<ReturnType<ReturnType<typeof apiClient>>>) => {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer realm="flowboard"');
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(res.json).toMatchObject({
    type: 'urn:flowboard:problem:unauthorized',
    status: 401,
    requestId: res.headers.get('x-request-id'),
  });
};

describe('authentication (docs/compat.md §3.1)', () => {
  it('no key → 401, even on an unknown route (401 comes first)', async () => {
    expectUnauthorized(await api('/api/v1/me'));
    expectUnauthorized(await api('/api/v1/nothing/here'));
  });

  it('a malformed key → 401 without asking membership', async () => {
    const before = h.membership.calls.count('AuthenticateApiKey');
    expectUnauthorized(await api('/api/v1/me', { key: 'not-a-key' }));
    expectUnauthorized(await api('/api/v1/me', { key: 'g'.repeat(32) }));
    expect(h.membership.calls.count('AuthenticateApiKey')).toBe(before);
  });

  it('an unknown key → 401 from membership', async () => {
    expectUnauthorized(await api('/api/v1/me', { key: '0'.repeat(32) }));
  });

  it('accepts X-Zen-ApiKey (trimmed, any case), Bearer and ?apikey= in any case', async () => {
    expect(
      (await api('/api/v1/me', { headers: { 'X-Zen-ApiKey': `  ${gob.key.toUpperCase()} ` } })).status,
    ).toBe(200);
    expect((await api('/api/v1/me', { headers: { Authorization: `Bearer ${gob.key}` } })).status).toBe(200);
    expect((await api(`/api/v1/me?apiKey=${gob.key}`)).status).toBe(200);
    expect((await api(`/api/v1/me?APIKEY=${gob.key}`)).status).toBe(200);
  });

  it('does not fall through from a bad first credential', async () => {
    expectUnauthorized(
      await api(`/api/v1/me?apikey=${gob.key}`, { headers: { 'X-Zen-ApiKey': 'f'.repeat(32) } }),
    );
    expectUnauthorized(
      await api(`/api/v1/me?apikey=${gob.key}`, { headers: { Authorization: 'Bearer nope' } }),
    );
  });

  it('caches a key: the second request does not call AuthenticateApiKey', async () => {
    const { key } = h.membership.addUser('Buster Bluth');
    const before = h.membership.calls.count('AuthenticateApiKey');
    expect((await api('/api/v1/me', { key })).status).toBe(200);
    expect(h.membership.calls.count('AuthenticateApiKey')).toBe(before + 1);
    expect((await api('/api/v1/me', { key })).status).toBe(200);
    expect((await api('/api/v1/me', { key: key.toUpperCase() })).status).toBe(200);
    expect(h.membership.calls.count('AuthenticateApiKey')).toBe(before + 1);
  });
});

describe('sign-up and /me', () => {
  it('POST /api/v1/users needs no key and returns the full record plus apiKey, last', async () => {
    const res = await api('/api/v1/users', {
      method: 'POST',
      body: { username: 'tobias', email: 'Tobias@funke.com' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(res.json)).toEqual(['id', 'name', 'userName', 'email', 'bio', 'createTime', 'apiKey']);
    expect(res.json).toMatchObject({
      name: 'tobias',
      userName: 'tobias',
      email: 'Tobias@funke.com',
      bio: '',
    });
    expect((await api('/api/v1/me', { key: res.json.apiKey })).json.userName).toBe('tobias');
  });

  it('sign-up in XML: root user', async () => {
    const res = await api('/api/v1/users', {
      method: 'POST',
      body: '<user><name>Maeby Funke</name><userName>maeby</userName><email>maeby@funke.com</email></user>',
      headers: { 'Content-Type': 'application/xml' },
    });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(
      /^<\?xml version="1\.0" encoding="utf-8"\?><user><apiKey>[0-9a-f]{32}<\/apiKey><bio \/>/,
    );
    expect(res.text).toContain('<name>Maeby Funke</name><userName>maeby</userName></user>');
  });

  it('sign-up without email → 400 naming the field', async () => {
    const res = await api('/api/v1/users', { method: 'POST', body: { userName: 'lindsay' } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      type: 'urn:flowboard:problem:invalid-field',
      detail: "Field 'email' is required.",
    });
  });

  it('the request id and the caller travel to membership in metadata', async () => {
    await api('/api/v1/me', { key: gob.key, headers: { 'X-Request-Id': 'trace-me-1' } });
    expect(h.membership.calls.lastContext.get('GetCurrentUser')).toEqual({
      requestId: 'trace-me-1',
      userId: gob.id,
      apiKey: { id: gob.keyId, name: '' }, // the key the request came with: its changes name it
      changes: [], // the call's own record of the changes it makes (none: a read), not from metadata
    });
  });

  it('GET /api/v1/me in JSON and XML', async () => {
    const json = await api('/api/v1/me', { key: gob.key });
    expect(json.text).toBe(
      `{"id":${gob.id},"name":"Gob Bluth","userName":"gobbluth","email":"${gob.id}@example.test","bio":"","createTime":"2011-02-17T18:47:16"}`,
    );
    const xml = await api('/api/v1/me', { key: gob.key, headers: { Accept: 'application/xml' } });
    expect(xml.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(xml.text).toBe(
      '<?xml version="1.0" encoding="utf-8"?><user><bio /><createTime>2011-02-17T18:47:16</createTime>' +
        `<email>${gob.id}@example.test</email><id>${gob.id}</id><name>Gob Bluth</name><userName>gobbluth</userName></user>`,
    );
  });
});
