import { status } from '@grpc/grpc-js';
import type { membership } from '@flowboard/proto';
import { codeOf, startHarness, type Harness } from './harness';

// Scoped, expiring API keys through gRPC against PostgreSQL (migration 0006): what is stored, what authentication
// answers, the refusal of a scoped key to a gateway that does not enforce scopes, last uses, and a limited list.
jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const authenticate = (apiKey: string, enforcesScopes = true) =>
  h.call<membership.AuthenticateApiKeyResponse__Output>('AuthenticateApiKey', {
    api_key: apiKey,
    enforces_scopes: enforcesScopes,
  });

describe('scoped API keys', () => {
  it('stores a scoped key and answers it, with its user, to a gateway that enforces scopes', async () => {
    const { user, apiKey: firstKey } = await h.signUp('gob', 'Gob Bluth');
    const { project } = await h.newProject(user.id, 'Banana stand');
    const expireTime = new Date(Date.now() + 3_600_000).toISOString();
    const created = await h.call<membership.CreateApiKeyResponse__Output>(
      'CreateApiKey',
      {
        name: 'triage bot',
        expire_time: expireTime,
        read_only: true,
        project_ids: [project.id],
        groups: ['stories'],
      },
      user.id,
    );
    expect(created.api_key).toMatchObject({
      name: 'triage bot',
      read_only: true,
      groups: ['stories'],
      last_use_time: '',
      enabled: true,
    });
    expect(created.api_key!.project_ids.map(Number)).toEqual([project.id]);
    // API timestamps are whole seconds, UTC, without a zone (docs/compat.md §1.5).
    expect(created.api_key!.expire_time).toBe(expireTime.slice(0, 19));

    const answer = await authenticate(created.key);
    expect(answer.user?.id).toBe(user.id);
    expect(answer.api_key).toEqual(created.api_key);
    // An older gateway would let it act as its whole user: refused there.
    await expect(codeOf(authenticate(created.key, false))).resolves.toBe(status.UNAUTHENTICATED);
    // The key from sign-up has no limit, and works everywhere as before.
    const first = await authenticate(firstKey, false);
    expect(first.api_key).toMatchObject({
      name: '',
      read_only: false,
      project_ids: [],
      groups: [],
      expire_time: '',
    });
  });

  it('refuses a key past its expiry', async () => {
    const { user } = await h.signUp('lindsay', 'Lindsay Bluth');
    const created = await h.call<membership.CreateApiKeyResponse__Output>(
      'CreateApiKey',
      { expire_time: new Date(Date.now() + 1_500).toISOString() },
      user.id,
    );
    await expect(authenticate(created.key)).resolves.toMatchObject({ user: { id: user.id } });
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    await expect(codeOf(authenticate(created.key))).resolves.toBe(status.UNAUTHENTICATED);
  });

  it('refuses bad scopes with INVALID_ARGUMENT and stores nothing', async () => {
    const { user } = await h.signUp('tobias', 'Tobias Fünke');
    const { user: other } = await h.signUp('lucille', 'Lucille Bluth');
    const { project: theirs } = await h.newProject(other.id, 'Bluth Company');
    for (const request of [
      { expire_time: new Date(Date.now() - 1_000).toISOString() },
      { project_ids: [theirs.id] },
      { name: 'x'.repeat(101) },
      { groups: ['NOT A GROUP'] },
    ]) {
      await expect(codeOf(h.call('CreateApiKey', request, user.id))).resolves.toBe(status.INVALID_ARGUMENT);
    }
    const list = await h.call<membership.ListApiKeysResponse__Output>('ListApiKeys', {}, user.id);
    expect(list.api_keys).toHaveLength(1);
  });

  it('records last uses from batches, never moving one back', async () => {
    const { user } = await h.signUp('buster', 'Buster Bluth');
    const [key] = (await h.call<membership.ListApiKeysResponse__Output>('ListApiKeys', {}, user.id)).api_keys;
    const id = key!.id;
    await h.call('RecordApiKeyUse', { uses: [{ api_key_id: id, use_time: '2026-11-28T04:00:00.000Z' }] });
    await h.call('RecordApiKeyUse', {
      uses: [
        { api_key_id: id, use_time: '2026-11-28T03:00:00.000Z' },
        { api_key_id: 987_654_321, use_time: '2026-11-28T05:00:00.000Z' },
      ],
    });
    const [after] = (await h.call<membership.ListApiKeysResponse__Output>('ListApiKeys', {}, user.id))
      .api_keys;
    expect(after?.last_use_time).toBe('2026-11-28T04:00:00');
  });

  it("lists only the projects named, among the caller's", async () => {
    const { user } = await h.signUp('maeby', 'Maeby Fünke');
    const { project: a } = await h.newProject(user.id, 'A');
    const { project: b } = await h.newProject(user.id, 'B');
    const list = (only: number[]) =>
      h
        .call<membership.ListProjectsResponse__Output>('ListProjects', { only_project_ids: only }, user.id)
        .then((r) => r.projects.map((e) => Number(e.project?.id)));
    await expect(list([])).resolves.toEqual([a.id, b.id]);
    await expect(list([b.id, 987_654_321])).resolves.toEqual([b.id]);
  });

  it('keeps a key with limits where a previous release finds none, so a rollback refuses it rather than widen it', async () => {
    const { user, apiKey: firstKey } = await h.signUp('oscar', 'Oscar Bluth');
    const limited = await h.call<membership.CreateApiKeyResponse__Output>(
      'CreateApiKey',
      { read_only: true },
      user.id,
    );
    const expiring = await h.call<membership.CreateApiKeyResponse__Output>(
      'CreateApiKey',
      { expire_time: new Date(Date.now() + 3_600_000).toISOString() },
      user.id,
    );
    const named = await h.call<membership.CreateApiKeyResponse__Output>(
      'CreateApiKey',
      { name: 'just a name' },
      user.id,
    );
    // The previous release's lookup, word for word (0001_init.sql's columns only).
    const previousRelease = async (key: string) =>
      (
        await h.pool.query(
          `SELECT u.id FROM membership.api_keys k JOIN membership.users u ON u.id = k.user_id
            WHERE k.key_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex') AND k.enabled AND u.enabled`,
          [key],
        )
      ).rowCount;
    expect(await previousRelease(firstKey)).toBe(1);
    expect(await previousRelease(named.key)).toBe(1);
    expect(await previousRelease(limited.key)).toBe(0);
    expect(await previousRelease(expiring.key)).toBe(0);
    // Here they are enabled, and the operator's switch works on them as on any key.
    expect(limited.api_key?.enabled).toBe(true);
    const off = await h.call<membership.SetApiKeyEnabledResponse__Output>('SetApiKeyEnabled', {
      user_id: user.id,
      api_key_id: limited.api_key!.id,
      enabled: false,
    });
    expect(off.api_key?.enabled).toBe(false);
    await expect(codeOf(authenticate(limited.key))).resolves.toBe(status.UNAUTHENTICATED);
    const on = await h.call<membership.SetApiKeyEnabledResponse__Output>('SetApiKeyEnabled', {
      user_id: user.id,
      api_key_id: limited.api_key!.id,
      enabled: true,
    });
    expect(on.api_key?.enabled).toBe(true);
    await expect(authenticate(limited.key)).resolves.toMatchObject({ user: { id: user.id } });
    expect(await previousRelease(limited.key)).toBe(0);
  });
});
