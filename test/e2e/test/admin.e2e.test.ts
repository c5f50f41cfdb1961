import { operatorToken } from './operator';
import { api, childNames, signUp, sorted, type SignedUp } from './support';

/**
 * The operator's endpoints (flowboard additions) through the gateway: `PUT /api/v1/admin/accounts/{userId}` —
 * the operator token and nothing else, JSON and XML, partial changes and resets, bad bodies, and the effect on
 * the account's owner — and the switches `PUT /api/v1/admin/users/{userId}` and
 * `PUT /api/v1/admin/users/{userId}/apikeys/{keyId}`, which take effect on the very next request despite the
 * gateway's key cache. (OPERATOR_TOKEN unset → 404: the gateway's integration tests, the stack always has one.)
 */
jest.setTimeout(60_000);

let user: SignedUp;
const path = () => `/api/v1/admin/accounts/${user.id}`;
const asOperator = () => ({ Authorization: `Bearer ${operatorToken()}` });

beforeAll(async () => {
  user = await signUp('admin-target');
});

const put = (body: unknown, headers: Record<string, string> = asOperator(), at = path()) =>
  api(at, { method: 'PUT', body, headers });

/** Credentials that are not the operator token: none, wrong tokens, and the user's own API key. */
const notOperator = (key: string): Array<Record<string, string>> => [
  {},
  { Authorization: 'Bearer not-the-token' },
  { Authorization: `Bearer ${operatorToken()}0` },
  { Authorization: operatorToken() },
  { Authorization: `Bearer ${key}` },
  { 'X-Zen-ApiKey': key },
];

const expectUnauthorized = (res: Awaited<ReturnType<typeof api>>) => {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer realm="flowboard"');
  expect(res.json).toMatchObject({ type: 'urn:flowboard:problem:unauthorized', status: 401 });
};

describe('PUT /api/v1/admin/accounts/{userId}', () => {
  it('sets limits from JSON and answers the account; the owner sees them at once', async () => {
    const res = await put({ collaboratorLimit: 4, storageLimitBytes: 5_000_000 });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: user.id,
      collaboratorLimit: 4,
      collaboratorsUsed: 0,
      storageLimitBytes: 5_000_000,
      storageUsedBytes: 0,
    });
    const mine = await api('/api/v1/me/account', { key: user.key });
    expect(mine.json).toEqual(res.json);

    // Only what is given changes; numeric strings are accepted as elsewhere in the API.
    const partly = await put({ storageLimitBytes: '6000000' });
    expect(partly.json).toMatchObject({ collaboratorLimit: 4, storageLimitBytes: 6_000_000 });
  });

  it('takes XML, and an empty element (or null) puts a limit back to the default', async () => {
    const res = await put(
      '<account><collaboratorLimit /><storageLimitBytes>7</storageLimitBytes></account>',
      {
        ...asOperator(),
        'Content-Type': 'application/xml',
        Accept: 'application/xml',
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(childNames(res.text, 'account')).toEqual(
      sorted(['id', 'collaboratorLimit', 'collaboratorsUsed', 'storageLimitBytes', 'storageUsedBytes']),
    );
    expect(res.text).toContain('<collaboratorLimit />');
    expect(res.text).toContain('<storageLimitBytes>7</storageLimitBytes>');

    const back = await put({ storageLimitBytes: null });
    expect(back.status).toBe(200);
    expect(back.json.storageLimitBytes).toBeGreaterThan(7);
    expect(back.json).not.toHaveProperty('collaboratorLimit');
  });

  it('accepts only the operator token: missing, wrong, or an API key → 401', async () => {
    for (const headers of notOperator(user.key))
      expectUnauthorized(await put({ collaboratorLimit: 0 }, headers));
    // An API key in the query string does not work either, and nothing was changed by any of these.
    expect(
      (await api(`${path()}?apikey=${user.key}`, { method: 'PUT', body: { collaboratorLimit: 0 } })).status,
    ).toBe(401);
    expect((await api('/api/v1/me/account', { key: user.key })).json).not.toHaveProperty('collaboratorLimit');
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ collaboratorLimit: -1 }, 'collaboratorLimit'],
      [{ collaboratorLimit: 2.5 }, 'collaboratorLimit'],
      [{ storageLimitBytes: 'lots' }, 'storageLimitBytes'],
      [{ storageLimitBytes: 2 ** 60 }, 'storageLimitBytes'],
      [{}, 'collaboratorLimit'],
      [{ collaboratorlimit: 3 }, 'collaboratorLimit'],
    ];
    for (const [body, field] of cases) {
      const res = await put(body);
      expect(res.status).toBe(400);
      expect(res.json.type).toBe('urn:flowboard:problem:invalid-field');
      expect(res.json.detail).toContain(field);
    }
    const malformed = await put('{"collaboratorLimit": ', {
      ...asOperator(),
      'Content-Type': 'application/json',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json.type).toBe('urn:flowboard:problem:invalid-body');
    const xml = await put('<account><collaboratorLimit>x</collaboratorLimit></account>', {
      ...asOperator(),
      'Content-Type': 'application/xml',
      Accept: 'application/xml',
    });
    expect(xml.status).toBe(400);
    expect(xml.text).toContain('<status>400</status>');
  });

  it('answers 404 for an unknown user, and 405 (after the usual API key check) for other methods', async () => {
    const res = await put({ collaboratorLimit: 1 }, asOperator(), '/api/v1/admin/accounts/999999999');
    expect(res.status).toBe(404);
    expect(res.json.type).toBe('urn:flowboard:problem:not-found');
    // User 0 can never exist: still 404, however the two services' answers race (files refuses id 0 itself).
    for (let i = 0; i < 5; i++) {
      const zero = await put({ collaboratorLimit: 1 }, asOperator(), '/api/v1/admin/accounts/0');
      expect([zero.status, zero.json.type]).toEqual([404, 'urn:flowboard:problem:not-found']);
    }
    // Other methods are not routes: as everywhere, the API key comes first (401 → 405), so 405 needs one.
    const get = await api(path(), { key: user.key });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('PUT, OPTIONS');
  });
});

/** A fresh user with a second key; both keys have been used once, so the gateway has cached them. */
async function userWithTwoKeys(prefix: string) {
  const owner = await signUp(prefix);
  const created = await api('/api/v1/me/apikeys', { method: 'POST', key: owner.key });
  expect(created.status).toBe(200);
  const second = { id: created.json.id as number, key: created.json.key as string };
  const keys = await api('/api/v1/me/apikeys', { key: second.key });
  const first = { id: keys.json.items[0].id as number, key: owner.key };
  expect((await api('/api/v1/me', { key: first.key })).status).toBe(200);
  return { user: owner, first, second };
}

const status = async (key: string) => (await api('/api/v1/me', { key })).status;
const XML_BODY = { ...asOperator(), 'Content-Type': 'application/xml', Accept: 'application/xml' };
const userPath = (userId: number) => `/api/v1/admin/users/${userId}`;
const keyPath = (userId: number, keyId: number) => `/api/v1/admin/users/${userId}/apikeys/${keyId}`;

describe('PUT /api/v1/admin/users/{userId}/apikeys/{keyId}', () => {
  it('disables one key: 401 on its very next request, the other key still works; re-enabling restores it', async () => {
    const { user: owner, first, second } = await userWithTwoKeys('key-switch');

    const off = await put({ enabled: false }, asOperator(), keyPath(owner.id, second.id));
    expect(off.status).toBe(200);
    expect(off.json).toEqual({
      id: second.id,
      createTime: expect.any(String),
      enabled: false,
      hint: second.key.slice(-4),
      name: '', // made without a scope: no name, read-write on everything
      access: 'readwrite',
      // Used above: shown once a gateway has sent the use (every 30 s).
      ...('lastUsedTime' in off.json
        ? { lastUsedTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:]{8}$/) }
        : {}),
    });
    expectUnauthorized(await api('/api/v1/me', { key: second.key }));
    expect(await status(first.key)).toBe(200);
    const listed = await api('/api/v1/me/apikeys', { key: first.key });
    expect(listed.json.items.map((k: { id: number; enabled: boolean }) => [k.id, k.enabled])).toEqual([
      [first.id, true],
      [second.id, false],
    ]);

    const on = await put({ enabled: true }, asOperator(), keyPath(owner.id, second.id));
    expect(on.json.enabled).toBe(true);
    expect(await status(second.key)).toBe(200);
  });

  it('takes XML (`<apiKey><enabled>false</enabled></apiKey>`) and answers in XML', async () => {
    const { user: owner, first, second } = await userWithTwoKeys('key-xml');
    const res = await put('<apiKey><enabled>false</enabled></apiKey>', XML_BODY, keyPath(owner.id, first.id));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    // `lastUsedTime` too once a gateway has sent the key's use (every 30 s).
    expect(childNames(res.text, 'apiKey').filter((n) => n !== 'lastUsedTime')).toEqual(
      sorted(['id', 'name', 'createTime', 'enabled', 'hint', 'access']),
    );
    expect(res.text).toContain('<enabled>false</enabled>');
    expect(await status(first.key)).toBe(401);
    expect(await status(second.key)).toBe(200);
    await put('<apiKey><enabled>true</enabled></apiKey>', XML_BODY, keyPath(owner.id, first.id));
    expect(await status(first.key)).toBe(200);
  });

  it("answers 404 for another user's key, an unknown key or user; 401 without the operator token", async () => {
    const { user: owner, first } = await userWithTwoKeys('key-guard');
    const other = await signUp('key-other');
    const otherKeyId = (await api('/api/v1/me/apikeys', { key: other.key })).json.items[0].id as number;
    for (const at of [
      keyPath(owner.id, otherKeyId),
      keyPath(other.id, first.id),
      keyPath(owner.id, 999_999_999),
      keyPath(999_999_999, first.id),
      keyPath(owner.id, 0),
    ]) {
      const res = await put({ enabled: false }, asOperator(), at);
      expect(res.status).toBe(404);
      expect(res.json.type).toBe('urn:flowboard:problem:not-found');
    }
    for (const headers of notOperator(first.key))
      expectUnauthorized(await put({ enabled: false }, headers, keyPath(owner.id, first.id)));
    // The token comes first: a bad body or an unknown key without it is 401 too.
    expectUnauthorized(await put({}, {}, keyPath(owner.id, 999_999_999)));
    expect(await status(first.key)).toBe(200);
    expect(await status(other.key)).toBe(200);
  });
});

describe('PUT /api/v1/admin/users/{userId}', () => {
  it('disables a user: every key of theirs is 401 at once; re-enabling makes them work again at once', async () => {
    const { user: owner, first, second } = await userWithTwoKeys('user-switch');
    const bystander = await signUp('user-bystander');

    const off = await put({ enabled: false }, asOperator(), userPath(owner.id));
    expect(off.status).toBe(200);
    expect(off.json).toEqual({
      id: owner.id,
      name: 'user-switch Tester',
      userName: owner.userName,
      email: owner.email,
      bio: '',
      createTime: expect.any(String),
      enabled: false,
    });
    expectUnauthorized(await api('/api/v1/me', { key: first.key }));
    expect(await status(second.key)).toBe(401);
    expect((await api('/api/v1/me/apikeys', { key: first.key })).status).toBe(401);
    expect(await status(bystander.key)).toBe(200);

    const on = await put({ enabled: 'true' }, asOperator(), userPath(owner.id));
    expect(on.status).toBe(200);
    expect(on.json.enabled).toBe(true);
    expect(await status(first.key)).toBe(200);
    expect(await status(second.key)).toBe(200);
    // The keys' own state was never touched.
    const keys = await api('/api/v1/me/apikeys', { key: first.key });
    expect(keys.json.items.map((k: { enabled: boolean }) => k.enabled)).toEqual([true, true]);
  });

  it('takes XML (`<user><enabled>false</enabled></user>`) and answers the record in XML', async () => {
    const { user: owner, first, second } = await userWithTwoKeys('user-xml');
    const res = await put('<user><enabled>false</enabled></user>', XML_BODY, userPath(owner.id));
    expect(res.status).toBe(200);
    expect(childNames(res.text, 'user')).toEqual(
      sorted(['id', 'name', 'userName', 'email', 'bio', 'createTime', 'enabled']),
    );
    expect(res.text).toContain('<enabled>false</enabled>');
    expect(await status(first.key)).toBe(401);
    expect(await status(second.key)).toBe(401);
    expect((await put('<user><enabled> TRUE </enabled></user>', XML_BODY, userPath(owner.id))).status).toBe(
      200,
    );
    expect(await status(first.key)).toBe(200);
  });

  it('refuses bad bodies (400 naming `enabled`), non-operators (401) and unknown users (404)', async () => {
    const target = await signUp('user-guard');
    for (const body of [{}, { enabled: null }, { enabled: 'maybe' }, { enabled: 1 }, { Enabled: false }]) {
      const res = await put(body, asOperator(), userPath(target.id));
      expect(res.status).toBe(400);
      expect(res.json.type).toBe('urn:flowboard:problem:invalid-field');
      expect(res.json.detail).toContain('enabled');
    }
    const xml = await put('<user><enabled>no</enabled></user>', XML_BODY, userPath(target.id));
    expect(xml.status).toBe(400);
    expect(xml.text).toContain('<status>400</status>');

    for (const headers of notOperator(target.key))
      expectUnauthorized(await put({ enabled: false }, headers, userPath(target.id)));
    expectUnauthorized(await put({}, {}, userPath(999_999_999)));

    const unknown = await put({ enabled: false }, asOperator(), userPath(999_999_999));
    expect(unknown.status).toBe(404);
    expect(unknown.json.type).toBe('urn:flowboard:problem:not-found');
    // Nothing above changed the user.
    expect(await status(target.key)).toBe(200);
  });
});
