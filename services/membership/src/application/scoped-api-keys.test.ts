import { DomainError } from '@flowboard/service-kit';
import { InMemoryDatabase, NO_LIMITS } from '../../test/fakes/in-memory-database';
import type { ApiKeyScopeInput } from '../domain/api-key';
import { createApiKeyUseCases } from './api-keys';
import { createAuthenticateApiKey } from './authenticate-api-key';
import { createCreateProject } from './create-project';
import { createProjectUseCases } from './projects';
import { createSignUp } from './sign-up';

const NO_SCOPE: ApiKeyScopeInput = { name: '', expireTime: '', readOnly: false, projectIds: [], groups: [] };

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (e: unknown) => (e instanceof DomainError ? `${e.kind}: ${e.message}` : String(e)),
  );

async function setup() {
  const db = new InMemoryDatabase();
  const keys = createApiKeyUseCases({ db, now: () => db.now });
  const gob = await signUpAs(db, 'gob');
  const bob = await signUpAs(db, 'bob');
  const { project: own } = await createCreateProject({ db })(gob.user.id, { name: 'Banana stand' });
  const { project: other } = await createCreateProject({ db })(bob.user.id, { name: 'Law office' });
  return { db, keys, gob, own, other, authenticate: createAuthenticateApiKey({ db }) };
}

const signUpAs = (db: InMemoryDatabase, userName: string) =>
  createSignUp({ db, enabled: true })({ userName, email: `${userName}@bluth.com` });

describe('scoped, expiring API keys', () => {
  it('stores a named, read-only key limited to projects and groups, and authenticates it with its scope', async () => {
    const { db, keys, gob, own, authenticate } = await setup();
    const { key, apiKey } = await keys.create(gob.user.id, {
      name: '  triage bot ',
      expireTime: '2025-02-01T00:00:00Z',
      readOnly: true,
      projectIds: [own.id, own.id],
      groups: ['stories', 'comments', 'stories'],
    });
    expect(apiKey).toMatchObject({
      name: 'triage bot',
      readOnly: true,
      projectIds: [own.id],
      groups: ['comments', 'stories'],
      expiresAt: new Date('2025-02-01T00:00:00Z'),
    });
    expect(apiKey.lastUsedAt).toBeUndefined();
    const found = await authenticate(key, true);
    expect(found.user.id).toBe(gob.user.id);
    expect(found.apiKey).toEqual(apiKey);
    // The key made at sign-up has no limit, as every key made before scopes existed.
    const [first] = await keys.list(gob.user.id);
    expect(first).toMatchObject({ name: '', readOnly: false });
    expect(first?.projectIds).toBeUndefined();
    expect(first?.groups).toBeUndefined();
    expect(first?.expiresAt).toBeUndefined();
    expect(db.state.apiKeys).toHaveLength(3);
  });

  it('refuses a scoped key to a caller that does not enforce scopes, and only a scoped one', async () => {
    const { keys, gob, authenticate } = await setup();
    const readOnly = await keys.create(gob.user.id, { ...NO_SCOPE, readOnly: true });
    const named = await keys.create(gob.user.id, {
      ...NO_SCOPE,
      name: 'ci',
      expireTime: '2030-01-01T00:00:00Z',
    });
    expect(await failure(authenticate(readOnly.key, false))).toMatch(/^Unauthenticated: .*scopes/);
    expect(await failure(authenticate(readOnly.key, true))).toBe('ok');
    // A name and an expiry limit nothing an older gateway would overstep (it still refuses an expired key: the
    // lookup does).
    expect(await failure(authenticate(named.key, false))).toBe('ok');
  });

  it('refuses an expired key from its expiry on', async () => {
    const { db, keys, gob, authenticate } = await setup();
    const { key } = await keys.create(gob.user.id, { ...NO_SCOPE, expireTime: '2025-01-02T03:05:00Z' });
    expect(await failure(authenticate(key, true))).toBe('ok');
    db.now = new Date('2025-01-02T03:05:00Z');
    expect(await failure(authenticate(key, true))).toMatch(/^Unauthenticated/);
  });

  it.each<[string, Partial<ApiKeyScopeInput>, RegExp]>([
    ['a name over 100 characters', { name: 'x'.repeat(101) }, /'name'/],
    ['an expiry in the past', { expireTime: '2025-01-01T00:00:00Z' }, /future/],
    ['an expiry that is now', { expireTime: '2025-01-02T03:04:05.678Z' }, /future/],
    ['an expiry that is no date', { expireTime: 'tomorrow' }, /RFC 3339/],
    [
      'an expiry without a zone, which is UTC like every API time, in the past',
      { expireTime: '2025-01-02T03:04:05' },
      /future/,
    ],
    ['a project id that is not one', { projectIds: [0] }, /'projects'/],
    ['a group that is not a name', { groups: ['Stories!'] }, /'groups'/],
  ])('refuses %s with 400 and writes nothing', async (_case, scope, message) => {
    const { db, keys, gob } = await setup();
    const outcome = await failure(keys.create(gob.user.id, { ...NO_SCOPE, ...scope }));
    expect(outcome).toMatch(/^InvalidArgument/);
    expect(outcome).toMatch(message);
    expect(db.state.apiKeys).toHaveLength(2);
  });

  it('refuses a key for a project its user is no member of, naming it, without telling whether it exists', async () => {
    const { db, keys, gob, own, other } = await setup();
    const outcome = await failure(
      keys.create(gob.user.id, { ...NO_SCOPE, projectIds: [own.id, other.id, 999] }),
    );
    expect(outcome).toBe(
      `InvalidArgument: 'projects' names projects you are not a member of: ${other.id}, 999.`,
    );
    expect(db.state.apiKeys).toHaveLength(2);
  });

  it('records last uses, never moving one back', async () => {
    const { keys, gob } = await setup();
    const [first] = await keys.list(gob.user.id);
    const id = first!.id;
    await keys.recordUses([{ id, usedAt: new Date('2025-01-02T04:00:00Z') }]);
    await keys.recordUses([
      { id, usedAt: new Date('2025-01-02T03:59:00Z') },
      { id: 999, usedAt: new Date('2025-01-02T05:00:00Z') },
      { id, usedAt: new Date('not a time') },
    ]);
    expect((await keys.list(gob.user.id))[0]?.lastUsedAt).toEqual(new Date('2025-01-02T04:00:00Z'));
  });

  it("lists only the projects a limited key reaches, among its user's", async () => {
    const { db, gob, own, other } = await setup();
    const { project: second } = await createCreateProject({ db })(gob.user.id, { name: 'Model home' });
    const projects = createProjectUseCases({ db, signal: jest.fn(), limits: NO_LIMITS });
    const list = (onlyProjectIds?: number[]) =>
      projects
        .list(gob.user.id, {
          where: '',
          page: 1,
          pageSize: 100,
          includeRoles: false,
          includeMembers: false,
          onlyProjectIds,
        })
        .then(({ entries, totalItems }) => ({ ids: entries.map((e) => e.project.id), totalItems }));
    expect(await list()).toEqual({ ids: [own.id, second.id], totalItems: 2 });
    expect(await list([])).toEqual({ ids: [own.id, second.id], totalItems: 2 });
    expect(await list([second.id, other.id])).toEqual({ ids: [second.id], totalItems: 1 });
  });
});
