import { apiClient } from '@flowboard/testing';
import { startHarness, type Harness } from './support/boot';

/**
 * `GET /me/account` and the operator's `PUT /admin/accounts/{userId}` against fakes: how the gateway composes
 * membership and files, and how it guards the admin routes (the user and key switches too). The rules behind the numbers: membership's tests
 * and test/e2e (accounts, admin).
 */
const TOKEN = 'operator-'.padEnd(40, 'x');

let h: Harness;
let api: ReturnType<typeof apiClient>;
let admin: ReturnType<typeof apiClient>;
let gob: { id: number; key: string };

beforeAll(async () => {
  h = await startHarness();
  api = apiClient(h.baseUrl);
  admin = apiClient((await h.gateway({ OPERATOR_TOKEN: TOKEN })).baseUrl);
  const { user, key } = h.membership.addUser('Gob Bluth');
  gob = { id: user.id, key };
});
afterAll(() => h.stop());

const put = (client: typeof api, userId: number, body: unknown, headers: Record<string, string> = {}) =>
  client(`/api/v1/admin/accounts/${userId}`, { method: 'PUT', body, headers });

/** Every operator route with a valid body, and the RPC it calls. */
const operatorRoutes = () => [
  { path: `/api/v1/admin/accounts/${gob.id}`, body: { collaboratorLimit: 1 }, rpc: 'UpdateAccount' },
  { path: `/api/v1/admin/users/${gob.id}`, body: { enabled: false }, rpc: 'SetUserEnabled' },
  { path: `/api/v1/admin/users/${gob.id}/apikeys/1`, body: { enabled: false }, rpc: 'SetApiKeyEnabled' },
];

describe('GET /me/account', () => {
  it('composes limits (membership) with storage in use, reservations included (files)', async () => {
    h.files.storageUsage.set(gob.id, { used_bytes: 1000, reserved_bytes: 24 });
    const res = await api('/api/v1/me/account', { key: gob.key });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: gob.id,
      collaboratorsUsed: 0,
      storageLimitBytes: 1024 ** 3,
      storageUsedBytes: 1024,
    });
    const xml = await api('/api/v1/me/account.xml', { key: gob.key });
    expect(xml.text).toContain('<collaboratorLimit />');
    expect((await api('/api/v1/me/account?with=stories', { key: gob.key })).status).toBe(400);
  });
});

describe('the operator routes (/admin/accounts, /admin/users, /admin/users/{id}/apikeys)', () => {
  it('are 404 when no operator token is configured, whatever the credential', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { Authorization: `Bearer ${TOKEN}` },
      { 'X-Zen-ApiKey': gob.key },
    ];
    for (const { path, body, rpc } of operatorRoutes()) {
      for (const headers of attempts) {
        const res = await api(path, { method: 'PUT', body, headers });
        expect(res.status).toBe(404);
        expect(res.json.type).toBe('urn:flowboard:problem:not-found');
      }
      expect(h.membership.calls.count(rpc)).toBe(0);
    }
  });

  it('take only the operator token: missing, wrong, or an API key → 401 without calling membership', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { Authorization: `Bearer ${TOKEN}x` },
      { Authorization: `Bearer ${gob.key}` },
      { Authorization: TOKEN },
      { 'X-Zen-ApiKey': gob.key },
    ];
    for (const { path, body, rpc } of operatorRoutes()) {
      for (const headers of attempts) {
        const res = await admin(path, { method: 'PUT', body, headers });
        expect(res.status).toBe(401);
        expect(res.json.type).toBe('urn:flowboard:problem:unauthorized');
        expect(res.headers.get('www-authenticate')).toBeTruthy();
      }
      expect(h.membership.calls.count(rpc)).toBe(0);
    }
  });

  it('refuse a missing or non-boolean `enabled` (400) before calling membership', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    for (const { path, rpc } of operatorRoutes().slice(1)) {
      for (const body of [{}, { enabled: 'yes' }, { enabled: null }, '<user><enabled /></user>']) {
        const headers =
          typeof body === 'string'
            ? { ...auth, 'Content-Type': 'application/xml', Accept: 'application/json' }
            : auth;
        const res = await admin(path, { method: 'PUT', body, headers });
        expect(res.status).toBe(400);
        expect(res.json.type).toBe('urn:flowboard:problem:invalid-field');
        expect(res.json.detail).toContain("'enabled'");
      }
      expect(h.membership.calls.count(rpc)).toBe(0);
    }
  });
});

describe('PUT /admin/accounts/{userId}', () => {
  it('sets limits, resets one with null, and answers the account (JSON and XML)', async () => {
    const auth = { Authorization: `bearer ${TOKEN}` };
    const set = await put(admin, gob.id, { collaboratorLimit: 5, storageLimitBytes: '2048' }, auth);
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({ id: gob.id, collaboratorLimit: 5, storageLimitBytes: 2048 });
    const xml = await put(admin, gob.id, '<account><collaboratorLimit /></account>', {
      ...auth,
      'Content-Type': 'application/xml',
      Accept: 'application/xml',
    });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<collaboratorLimit /><collaboratorsUsed>0</collaboratorsUsed>');
    expect(xml.text).toContain('<storageLimitBytes>2048</storageLimitBytes>');
  });

  it('refuses bad bodies (400 naming the field) and unknown users (404)', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    for (const [body, field] of [
      [{ collaboratorLimit: -1 }, 'collaboratorLimit'],
      [{ storageLimitBytes: 1.5 }, 'storageLimitBytes'],
      [{ storageLimitBytes: 'lots' }, 'storageLimitBytes'],
      [{}, 'collaboratorLimit'],
      [{ name: 'x' }, 'collaboratorLimit'],
    ] as const) {
      const res = await put(admin, gob.id, body, auth);
      expect(res.status).toBe(400);
      expect(res.json.detail).toContain(field);
    }
    const malformed = await put(admin, gob.id, '{"collaboratorLimit":', {
      ...auth,
      'Content-Type': 'application/json',
    });
    expect(malformed.status).toBe(400);
    expect((await put(admin, 987_654_321, { collaboratorLimit: 1 }, auth)).status).toBe(404);
  });
});
