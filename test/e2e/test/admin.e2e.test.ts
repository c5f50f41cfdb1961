import { operatorToken } from './operator';
import { api, childNames, signUp, sorted, type SignedUp } from './support';

/**
 * The operator's `PUT /api/v1/admin/accounts/{userId}` (a flowboard addition) through the gateway: the operator
 * token and nothing else, JSON and XML, partial changes and resets, bad bodies, and the effect on the
 * account's owner. (OPERATOR_TOKEN unset → 404: the gateway's integration tests, the stack always has one.)
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
    const attempts: Array<Record<string, string>> = [
      {},
      { Authorization: 'Bearer not-the-token' },
      { Authorization: `Bearer ${operatorToken()}0` },
      { Authorization: operatorToken() },
      { Authorization: `Bearer ${user.key}` },
      { 'X-Zen-ApiKey': user.key },
    ];
    for (const headers of attempts) {
      const res = await put({ collaboratorLimit: 0 }, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="flowboard"');
      expect(res.json).toMatchObject({ type: 'urn:flowboard:problem:unauthorized', status: 401 });
    }
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
    // Other methods are not routes: as everywhere, the API key comes first (401 → 405), so 405 needs one.
    const get = await api(path(), { key: user.key });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('PUT, OPTIONS');
  });
});
