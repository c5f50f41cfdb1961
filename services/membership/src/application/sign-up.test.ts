import { DomainError } from '@flowboard/service-kit';
import { InMemoryDatabase } from '../../test/fakes/in-memory-database';
import { hashApiKey } from '../domain/secrets';
import { createAuthenticateApiKey } from './authenticate-api-key';
import type { Database } from './ports';
import { createSignUp } from './sign-up';

/** As a gateway that enforces scopes asks. */
const authenticatorOf = (db: Database) => {
  const authenticate = createAuthenticateApiKey({ db });
  return (key: string) => authenticate(key, true);
};

const kindOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (e: DomainError) => `${e.kind}: ${e.message}`,
  );

describe('sign-up and authentication', () => {
  let db: InMemoryDatabase;
  beforeEach(() => {
    db = new InMemoryDatabase();
  });

  it('creates the user and a key that authenticates; only the key hash is stored', async () => {
    const { user, apiKey } = await createSignUp({ db, enabled: true })({
      userName: 'gob',
      email: 'Gob@bluth.com',
    });
    expect(user).toMatchObject({ name: 'gob', userName: 'gob', email: 'Gob@bluth.com', bio: '' });
    expect(apiKey).toMatch(/^[0-9a-f]{32}$/);
    expect(db.state.apiKeys).toEqual([
      expect.objectContaining({ keyHash: hashApiKey(apiKey), hint: apiKey.slice(-4) }),
    ]);
    expect(JSON.stringify(db.state)).not.toContain(apiKey);

    const authenticate = authenticatorOf(db);
    expect((await authenticate(`  ${apiKey.toUpperCase()} `)).user.id).toBe(user.id);
  });

  it('refuses unknown, malformed and disabled keys', async () => {
    const { apiKey } = await createSignUp({ db, enabled: true })({ userName: 'gob', email: 'gob@bluth.com' });
    const authenticate = authenticatorOf(db);
    expect(await kindOf(authenticate('0'.repeat(32)))).toMatch(/^Unauthenticated/);
    expect(await kindOf(authenticate('not a key'))).toMatch(/^Unauthenticated/);
    db.state.apiKeys[0]!.enabled = false;
    expect(await kindOf(authenticate(apiKey))).toMatch(/^Unauthenticated/);
  });

  it('names the duplicate field, ignoring case, and keeps nothing of the failed attempt', async () => {
    const signUp = createSignUp({ db, enabled: true });
    await signUp({ userName: 'gob', email: 'gob@bluth.com' });
    expect(await kindOf(signUp({ userName: 'GOB', email: 'other@bluth.com' }))).toMatch(
      /^AlreadyExists: .*userName/,
    );
    expect(await kindOf(signUp({ userName: 'other', email: 'GOB@Bluth.com' }))).toMatch(
      /^AlreadyExists: .*email/,
    );
    expect(db.state.users).toHaveLength(1);
    expect(db.state.apiKeys).toHaveLength(1);
  });

  it('validates before touching the database', async () => {
    const signUp = createSignUp({ db, enabled: true });
    expect(await kindOf(signUp({ userName: 'gob bluth', email: 'gob@bluth.com' }))).toMatch(
      /^InvalidArgument: 'userName'/,
    );
    expect(await kindOf(signUp({ userName: 'gob', email: 'nope' }))).toMatch(/^InvalidArgument: 'email'/);
    expect(db.state.users).toHaveLength(0);
  });

  it('does not exist when switched off', async () => {
    expect(
      await kindOf(createSignUp({ db, enabled: false })({ userName: 'gob', email: 'gob@bluth.com' })),
    ).toMatch(/^NotFound/);
  });
});
