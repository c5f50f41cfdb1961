import { createHash } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import type { membership } from '@flowboard/proto';
import { codeOf, startHarness, type Harness } from './harness';

/** The operator's switches, SetUserEnabled and SetApiKeyEnabled, against the real database. */
jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');

/** A user with two keys. */
async function newUser(prefix = 'lindsay') {
  const { user, apiKey } = await h.signUp(prefix, 'Lindsay Fünke');
  const second = await h.call<membership.CreateApiKeyResponse__Output>('CreateApiKey', {}, user.id);
  const { api_keys } = await h.call<membership.ListApiKeysResponse__Output>('ListApiKeys', {}, user.id);
  return {
    user,
    first: { key: apiKey, id: api_keys[0]!.id },
    second: { key: second.key, id: second.api_key!.id },
  };
}

const authenticates = (key: string) => codeOf(h.call('AuthenticateApiKey', { api_key: key }));

const setUser = (userId: number, enabled: boolean) =>
  h.call<membership.SetUserEnabledResponse__Output>('SetUserEnabled', { user_id: userId, enabled });

const setKey = (userId: number, keyId: number, enabled: boolean) =>
  h.call<membership.SetApiKeyEnabledResponse__Output>('SetApiKeyEnabled', {
    user_id: userId,
    api_key_id: keyId,
    enabled,
  });

describe('SetUserEnabled', () => {
  it('refuses every key of a disabled user and answers the user with all their key hashes', async () => {
    const { user, first, second } = await newUser();
    const other = await newUser('tobias');

    const off = await setUser(user.id, false);
    expect(off.user).toEqual(user);
    expect(off.enabled).toBe(false);
    expect([...off.api_key_hashes].sort()).toEqual([sha256(first.key), sha256(second.key)].sort());
    expect(await authenticates(first.key)).toBe(status.UNAUTHENTICATED);
    expect(await authenticates(second.key)).toBe(status.UNAUTHENTICATED);
    expect(await authenticates(other.first.key)).toBe('OK');
    const { rows } = await h.pool.query('SELECT enabled FROM users WHERE id = $1', [user.id]);
    expect(rows).toEqual([{ enabled: false }]);
    // The keys themselves are untouched: they work again as soon as the user does.
    const { api_keys } = await h.call<membership.ListApiKeysResponse__Output>('ListApiKeys', {}, user.id);
    expect(api_keys.map((k) => k.enabled)).toEqual([true, true]);

    // Idempotent: disabling twice answers the same.
    expect((await setUser(user.id, false)).enabled).toBe(false);
    const on = await setUser(user.id, true);
    expect(on.enabled).toBe(true);
    expect(on.api_key_hashes).toHaveLength(2);
    expect(await authenticates(first.key)).toBe('OK');
    expect(await authenticates(second.key)).toBe('OK');
  });

  it('answers NOT_FOUND for an unknown user', async () => {
    expect(await codeOf(setUser(999_999_999, false))).toBe(status.NOT_FOUND);
    expect(await codeOf(setUser(0, true))).toBe(status.NOT_FOUND);
  });
});

describe('SetApiKeyEnabled', () => {
  it('refuses a disabled key while the user’s other key still works, and restores it', async () => {
    const { user, first, second } = await newUser();

    const off = await setKey(user.id, second.id, false);
    expect(off.key_hash).toBe(sha256(second.key));
    expect(off.api_key).toEqual({
      id: second.id,
      create_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
      enabled: false,
      hint: second.key.slice(-4),
      // Made without a scope: no name, no expiry, no limit, never used.
      name: '',
      expire_time: '',
      read_only: false,
      project_ids: [],
      groups: [],
      last_use_time: '',
    });
    expect(await authenticates(second.key)).toBe(status.UNAUTHENTICATED);
    expect(await authenticates(first.key)).toBe('OK');
    const { api_keys } = await h.call<membership.ListApiKeysResponse__Output>('ListApiKeys', {}, user.id);
    expect(api_keys.map((k) => [k.id, k.enabled])).toEqual([
      [first.id, true],
      [second.id, false],
    ]);

    // A disabled key stays refused while its user is disabled and enabled again.
    await setUser(user.id, false);
    await setUser(user.id, true);
    expect(await authenticates(second.key)).toBe(status.UNAUTHENTICATED);

    expect((await setKey(user.id, second.id, true)).api_key!.enabled).toBe(true);
    expect(await authenticates(second.key)).toBe('OK');
  });

  it('answers NOT_FOUND for an unknown key, an unknown user or another user’s key, changing nothing', async () => {
    const gob = await newUser('gob');
    const buster = await newUser('buster');
    for (const [userId, keyId] of [
      [gob.user.id, buster.first.id],
      [buster.user.id, gob.first.id],
      [gob.user.id, 999_999_999],
      [999_999_999, gob.first.id],
      [gob.user.id, 0],
    ] as const)
      expect(await codeOf(setKey(userId, keyId, false))).toBe(status.NOT_FOUND);
    expect(await authenticates(gob.first.key)).toBe('OK');
    expect(await authenticates(buster.first.key)).toBe('OK');
  });
});
