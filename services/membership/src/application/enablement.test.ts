import { DomainError } from '@flowboard/service-kit';
import { InMemoryDatabase } from '../../test/fakes/in-memory-database';
import { hashApiKey } from '../domain/secrets';
import { createApiKeyUseCases } from './api-keys';
import { createAuthenticateApiKey } from './authenticate-api-key';
import type { Database } from './ports';
import { createEnablementUseCases } from './enablement';
import { createSignUp } from './sign-up';

/** As a gateway that enforces scopes asks. */
const authenticatorOf = (db: Database) => {
  const authenticate = createAuthenticateApiKey({ db });
  return (key: string) => authenticate(key, true);
};

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (e: unknown) => (e instanceof DomainError ? e.kind : String(e)),
  );

/** Gob with two keys, Bob with one. */
async function setup() {
  const db = new InMemoryDatabase();
  const signUp = createSignUp({ db, enabled: true });
  const apiKeys = createApiKeyUseCases({ db });
  const gob = await signUp({ userName: 'gob', email: 'gob@bluth.com' });
  const second = await apiKeys.create(gob.user.id, {
    name: '',
    expireTime: '',
    readOnly: false,
    projectIds: [],
    groups: [],
  });
  const bob = await signUp({ userName: 'bob', email: 'bob@loblaw.com' });
  const [gobFirst, bobKey] = [(await apiKeys.list(gob.user.id))[0]!, (await apiKeys.list(bob.user.id))[0]!];
  return {
    db,
    gob: { ...gob, firstKeyId: gobFirst.id, second },
    bob: { ...bob, keyId: bobKey.id },
    authenticate: authenticatorOf(db),
    enablement: createEnablementUseCases({ db }),
  };
}

describe('operator switches', () => {
  it('disables a user: every key of theirs is refused, and the answer names every key hash', async () => {
    const { gob, bob, authenticate, enablement } = await setup();
    const off = await enablement.setUser(gob.user.id, false);
    expect(off.user).toMatchObject({ id: gob.user.id, userName: 'gob' });
    expect(off.enabled).toBe(false);
    expect(new Set(off.apiKeyHashes)).toEqual(new Set([hashApiKey(gob.apiKey), hashApiKey(gob.second.key)]));
    expect(await outcome(authenticate(gob.apiKey))).toBe('Unauthenticated');
    expect(await outcome(authenticate(gob.second.key))).toBe('Unauthenticated');
    expect(await outcome(authenticate(bob.apiKey))).toBe('ok');

    const on = await enablement.setUser(gob.user.id, true);
    expect(on.enabled).toBe(true);
    expect(on.apiKeyHashes).toHaveLength(2);
    expect((await authenticate(gob.apiKey)).user.id).toBe(gob.user.id);
  });

  it('disables one key of a user and leaves their others working; re-enabling restores it', async () => {
    const { gob, authenticate, enablement } = await setup();
    const off = await enablement.setApiKey(gob.user.id, gob.second.apiKey.id, false);
    expect(off.keyHash).toBe(hashApiKey(gob.second.key));
    expect(off.apiKey).toMatchObject({
      id: gob.second.apiKey.id,
      enabled: false,
      hint: gob.second.key.slice(-4),
    });
    expect(off.apiKey).not.toHaveProperty('keyHash');
    expect(await outcome(authenticate(gob.second.key))).toBe('Unauthenticated');
    expect(await outcome(authenticate(gob.apiKey))).toBe('ok');

    expect((await enablement.setApiKey(gob.user.id, gob.second.apiKey.id, true)).apiKey.enabled).toBe(true);
    expect(await outcome(authenticate(gob.second.key))).toBe('ok');
  });

  it('keeps a disabled key refused while its user is re-enabled (both flags must be on)', async () => {
    const { gob, authenticate, enablement } = await setup();
    await enablement.setApiKey(gob.user.id, gob.firstKeyId, false);
    await enablement.setUser(gob.user.id, false);
    await enablement.setUser(gob.user.id, true);
    expect(await outcome(authenticate(gob.apiKey))).toBe('Unauthenticated');
    expect(await outcome(authenticate(gob.second.key))).toBe('ok');
  });

  it('answers NotFound for unknown users, unknown keys and another user’s key, changing nothing', async () => {
    const { db, gob, bob, enablement } = await setup();
    const before = structuredClone(db.state);
    expect(await outcome(enablement.setUser(9999, false))).toBe('NotFound');
    expect(await outcome(enablement.setUser(0, false))).toBe('NotFound');
    expect(await outcome(enablement.setUser(-1, false))).toBe('NotFound');
    expect(await outcome(enablement.setApiKey(gob.user.id, bob.keyId, false))).toBe('NotFound');
    expect(await outcome(enablement.setApiKey(bob.user.id, gob.firstKeyId, false))).toBe('NotFound');
    expect(await outcome(enablement.setApiKey(gob.user.id, 9999, false))).toBe('NotFound');
    expect(await outcome(enablement.setApiKey(9999, gob.firstKeyId, false))).toBe('NotFound');
    expect(await outcome(enablement.setApiKey(gob.user.id, 0, false))).toBe('NotFound');
    expect(db.state).toEqual(before);
  });
});
