import { createHash } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import type { membership } from '@flowboard/proto';
import { uniqueSuffix } from '@flowboard/testing';
import { codeOf, startHarness, type Harness } from './harness';

jest.setTimeout(30_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const signUp = async (name?: string) => {
  const suffix = uniqueSuffix();
  const res = await h.call<membership.SignUpResponse__Output>('SignUp', {
    name: name ?? '',
    user_name: `user-${suffix}`,
    email: `user-${suffix}@example.test`,
  });
  return { user: res.user!, apiKey: res.api_key };
};

describe('users', () => {
  it('signs up and authenticates with the key, which is stored only as a hash', async () => {
    const { user, apiKey } = await signUp('  Gob Bluth ');
    expect(user).toMatchObject({ name: 'Gob Bluth', bio: '' });
    expect(user.id).toBeGreaterThan(0);
    expect(user.create_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(apiKey).toMatch(/^[0-9a-f]{32}$/);

    const auth = await h.call<membership.AuthenticateApiKeyResponse__Output>('AuthenticateApiKey', {
      api_key: ` ${apiKey.toUpperCase()} `,
    });
    expect(auth.user).toEqual(user);

    const { rows } = await h.pool.query<{ row: string; key_hash: string }>(
      'SELECT row_to_json(k)::text AS row, k.key_hash FROM api_keys k WHERE k.user_id = $1',
      [user.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_hash).toBe(createHash('sha256').update(apiKey).digest('hex'));
    expect(rows[0]!.row).not.toContain(apiKey);

    expect(await codeOf(h.call('AuthenticateApiKey', { api_key: 'f'.repeat(32) }))).toBe(
      status.UNAUTHENTICATED,
    );
    expect(await codeOf(h.call('AuthenticateApiKey', { api_key: 'garbage' }))).toBe(status.UNAUTHENTICATED);
  });

  it('refuses duplicate user names and e-mail addresses, ignoring case', async () => {
    const { user } = await signUp();
    const dupName = h.call('SignUp', {
      user_name: user.user_name.toUpperCase(),
      email: `x-${uniqueSuffix()}@example.test`,
    });
    const dupEmail = h.call('SignUp', { user_name: `x-${uniqueSuffix()}`, email: user.email.toUpperCase() });
    await expect(dupName).rejects.toMatchObject({
      code: status.ALREADY_EXISTS,
      details: expect.stringContaining('userName'),
    });
    await expect(dupEmail).rejects.toMatchObject({
      code: status.ALREADY_EXISTS,
      details: expect.stringContaining('email'),
    });
    expect(await codeOf(h.call('SignUp', { user_name: 'bad name', email: 'x@example.test' }))).toBe(
      status.INVALID_ARGUMENT,
    );
  });

  it('knows the current user and resolves users in batches', async () => {
    const a = (await signUp()).user;
    const b = (await signUp()).user;
    const me = await h.call<membership.GetCurrentUserResponse__Output>('GetCurrentUser', {}, a.id);
    expect(me.user).toEqual(a);
    expect(await codeOf(h.call('GetCurrentUser', {}))).toBe(status.UNAUTHENTICATED);

    const batch = await h.call<membership.BatchGetUsersResponse__Output>('BatchGetUsers', {
      ids: [b.id, a.id, 999_999_999, a.id],
    });
    expect(batch.users).toEqual([a, b]);
  });
});

describe('ResolveNames (webhook payloads)', () => {
  it("answers a project's name and its users without a caller; a gone project is '' and unknown users are left out", async () => {
    const owner = (await signUp('Lucille Bluth')).user;
    const other = (await signUp()).user;
    const { project } = await h.call<membership.CreateProjectResponse__Output>(
      'CreateProject',
      { name: 'Bluth Company' },
      owner.id,
    );
    const names = await h.call<membership.ResolveNamesResponse__Output>('ResolveNames', {
      project_id: project!.id,
      user_ids: [other.id, owner.id, 999_999_999, 0],
    });
    expect(names).toEqual({ project_name: 'Bluth Company', users: [owner, other] });

    const gone = await h.call<membership.ResolveNamesResponse__Output>('ResolveNames', {
      project_id: 999_999_999,
      user_ids: [],
    });
    expect(gone).toEqual({ project_name: '', users: [] });
  });
});

describe('projects', () => {
  it('creates a project with its roles; the owner is admin and strangers find nothing', async () => {
    const owner = (await signUp('Gob Bluth')).user;
    const stranger = (await signUp()).user;
    const { project } = await h.call<membership.CreateProjectResponse__Output>(
      'CreateProject',
      { name: ' Sudden Valley ', description: 'I can see myself marinating a chicken in that.' },
      owner.id,
    );
    expect(project).toMatchObject({
      name: 'Sudden Valley',
      description: 'I can see myself marinating a chicken in that.',
      details: '',
    });
    expect(project!.owner).toEqual(owner);
    expect(project!.create_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);

    const access = await h.call<membership.GetProjectAccessResponse__Output>(
      'GetProjectAccess',
      { project_id: project!.id },
      owner.id,
    );
    expect(access).toEqual({
      access: 'ACCESS_ADMIN',
      is_owner: true,
      project_id: project!.id,
      project_name: 'Sudden Valley',
    });

    const view = await h.call<membership.GetProjectResponse__Output>(
      'GetProject',
      { project_id: project!.id, include_roles: true, include_members: true },
      owner.id,
    );
    expect(view.roles.map((r) => [r.name, r.access, r.members.map((m) => m.id)])).toEqual([
      ['Administrators', 'ACCESS_ADMIN', [owner.id]],
      ['Members', 'ACCESS_READWRITE', []],
    ]);
    expect(view.roles[0]!.id).toBeLessThan(view.roles[1]!.id);
    expect(view.members).toEqual([owner]);

    const plain = await h.call<membership.GetProjectResponse__Output>(
      'GetProject',
      { project_id: project!.id },
      owner.id,
    );
    expect(plain.roles).toEqual([]);
    expect(plain.members).toEqual([]);

    expect(await codeOf(h.call('GetProjectAccess', { project_id: project!.id }, stranger.id))).toBe(
      status.NOT_FOUND,
    );
    expect(await codeOf(h.call('GetProject', { project_id: project!.id }, stranger.id))).toBe(
      status.NOT_FOUND,
    );
    expect(await codeOf(h.call('GetProjectAccess', { project_id: 987_654_321 }, owner.id))).toBe(
      status.NOT_FOUND,
    );
    expect(await codeOf(h.call('CreateProject', { name: '  ' }, owner.id))).toBe(status.INVALID_ARGUMENT);
  });

  it('gives role members the highest access among their roles', async () => {
    const owner = (await signUp()).user;
    const member = (await signUp()).user;
    const { project } = await h.call<membership.CreateProjectResponse__Output>(
      'CreateProject',
      { name: 'Roles' },
      owner.id,
    );
    // Role management RPCs are not there yet: put the member into roles directly.
    const { rows } = await h.pool.query<{ id: number; name: string }>(
      'SELECT id, name FROM roles WHERE project_id = $1',
      [project!.id],
    );
    const members = rows.find((r) => r.name === 'Members')!;
    const { rows: readers } = await h.pool.query<{ id: number }>(
      "INSERT INTO roles (project_id, name, access) VALUES ($1, 'Readers', 'read') RETURNING id",
      [project!.id],
    );
    await h.pool.query('INSERT INTO role_members (role_id, user_id) VALUES ($1, $3), ($2, $3)', [
      readers[0]!.id,
      members.id,
      member.id,
    ]);

    const access = await h.call<membership.GetProjectAccessResponse__Output>(
      'GetProjectAccess',
      { project_id: project!.id },
      member.id,
    );
    expect(access).toMatchObject({ access: 'ACCESS_READWRITE', is_owner: false });
  });
});
