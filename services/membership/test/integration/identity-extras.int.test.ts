import { status } from '@grpc/grpc-js';
import type { membership } from '@flowboard/proto';
import { uniqueSuffix } from '@flowboard/testing';
import { codeOf, startHarness, type Harness } from './harness';

jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function newUser(prefix = 'gob') {
  const { user, apiKey } = await h.signUp(prefix, 'Gob Bluth');
  return { ...user, apiKey };
}

async function newProject(ownerId: number, name = 'Sudden Valley') {
  const { project, roles } = await h.newProject(ownerId, name);
  return { project, membersRole: roles.Members! };
}

async function newInvite(ownerId: number, projectId: number, roleId: number) {
  const { invite } = await h.call<membership.CreateInviteResponse__Output>(
    'CreateInvite',
    { project_id: projectId, email: `inv-${uniqueSuffix()}@example.test`, role_id: roleId },
    ownerId,
  );
  return invite!;
}

describe('invites after creation', () => {
  it('lists, gets and deletes pending invites; expired ones are not listed or acceptable (NOT_FOUND)', async () => {
    const owner = await newUser();
    const invitee = await newUser('maeby');
    const { project, membersRole } = await newProject(owner.id);
    const live = await newInvite(owner.id, project.id, membersRole.id);
    const expired = await newInvite(owner.id, project.id, membersRole.id);
    await h.pool.query(
      "UPDATE invites SET created_at = now() - interval '20 days', expires_at = now() - interval '1 day' WHERE id = $1",
      [expired.id],
    );

    const list = await h.call<membership.ListInvitesResponse__Output>(
      'ListInvites',
      { project_id: project.id },
      owner.id,
    );
    expect(list.invites.map((i) => i.id)).toEqual([live.id]);
    const got = await h.call<membership.GetInviteResponse__Output>(
      'GetInvite',
      { project_id: project.id, invite_id: live.id },
      owner.id,
    );
    expect(got.invite).toMatchObject({ id: live.id, role: { id: membersRole.id } });
    await expect(
      codeOf(h.call('GetInvite', { project_id: project.id, invite_id: expired.id }, owner.id)),
    ).resolves.toBe(status.NOT_FOUND);
    await expect(codeOf(h.call('AcceptInvite', { token: expired.token }, invitee.id))).resolves.toBe(
      status.NOT_FOUND,
    );
    // Not admin → the invitee is no member → NOT_FOUND.
    await expect(codeOf(h.call('ListInvites', { project_id: project.id }, invitee.id))).resolves.toBe(
      status.NOT_FOUND,
    );

    await h.call('DeleteInvite', { project_id: project.id, invite_id: live.id }, owner.id);
    await expect(
      codeOf(h.call('DeleteInvite', { project_id: project.id, invite_id: live.id }, owner.id)),
    ).resolves.toBe(status.NOT_FOUND);
  });

  it('accept joins the role and answers the project; of concurrent accepts exactly one succeeds', async () => {
    const owner = await newUser();
    const { project, membersRole } = await newProject(owner.id);
    const invite = await newInvite(owner.id, project.id, membersRole.id);
    const racers = await Promise.all(Array.from({ length: 6 }, () => newUser('racer')));

    const results = await Promise.allSettled(
      racers.map((u) =>
        h.call<membership.AcceptInviteResponse__Output>('AcceptInvite', { token: invite.token }, u.id),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as { code: number }).code).toBe(status.NOT_FOUND);
    expect(
      (won[0] as PromiseFulfilledResult<membership.AcceptInviteResponse__Output>).value.project,
    ).toMatchObject({
      id: project.id,
      owner: { id: owner.id },
    });

    const winner = racers[results.findIndex((r) => r.status === 'fulfilled')]!;
    const access = await h.call<membership.GetProjectAccessResponse__Output>(
      'GetProjectAccess',
      { project_id: project.id },
      winner.id,
    );
    expect(access.access).toBe('ACCESS_READWRITE');
    const { rows } = await h.pool.query('SELECT 1 FROM invites WHERE id = $1', [invite.id]);
    expect(rows).toHaveLength(0);
  });
});

describe('projects', () => {
  it("lists the caller's projects with a name filter and paging; updates; owner-only delete with an outbox event", async () => {
    const owner = await newUser();
    const admin = await newUser('admin');
    const name = `Bluth ${uniqueSuffix()}`;
    const { project } = await newProject(owner.id, name);
    const { project: second } = await newProject(owner.id, 'Other');
    await newProject(admin.id, name); // not the owner's

    const all = await h.call<membership.ListProjectsResponse__Output>(
      'ListProjects',
      { where: '', page: 1, page_size: 100 },
      owner.id,
    );
    expect(all.projects.map((e) => e.project!.id)).toEqual([project.id, second.id]);
    const filtered = await h.call<membership.ListProjectsResponse__Output>(
      'ListProjects',
      { where: `name:"${name}"`, page: 1, page_size: 1, include_members: true },
      owner.id,
    );
    expect(filtered.total_items).toBe(1);
    expect(filtered.projects[0]!.members.map((u) => u.id)).toEqual([owner.id]);

    const admins = await h.call<membership.ListRolesResponse__Output>(
      'ListRoles',
      { project_id: project.id, where: 'name:Administrators' },
      owner.id,
    );
    await h.call(
      'AddRoleMember',
      { project_id: project.id, role_id: admins.roles[0]!.id, user: { id: admin.id } },
      owner.id,
    );

    const stranger = await newUser('stranger');
    await expect(
      codeOf(h.call('UpdateProject', { project_id: project.id, owner: { id: stranger.id } }, owner.id)),
    ).resolves.toBe(status.INVALID_ARGUMENT);
    const updated = await h.call<membership.UpdateProjectResponse__Output>(
      'UpdateProject',
      { project_id: project.id, description: 'Solid as a rock', owner: { user_name: admin.user_name } },
      owner.id,
    );
    expect(updated.project).toMatchObject({ name, description: 'Solid as a rock', owner: { id: admin.id } });

    // The old owner is still an admin (Administrators role) but no longer the owner.
    await expect(codeOf(h.call('DeleteProject', { project_id: project.id }, owner.id))).resolves.toBe(
      status.PERMISSION_DENIED,
    );
    await h.call('DeleteProject', { project_id: project.id }, admin.id);
    const { rows } = await h.pool.query(
      `SELECT (SELECT count(*) FROM projects WHERE id = $1)::int AS projects,
              (SELECT count(*) FROM roles WHERE project_id = $1)::int AS roles,
              (SELECT count(*) FROM outbox WHERE topic = 'membership.project-deleted.v1' AND key = $1::text)::int AS events`,
      [project.id],
    );
    expect(rows[0]).toEqual({ projects: 0, roles: 0, events: 1 });
  });
});

describe('API keys and the current user', () => {
  it("creates, lists and deletes the caller's keys; another user's key is NOT_FOUND; deleted keys stop working", async () => {
    const user = await newUser();
    const other = await newUser('other');
    const created = await h.call<membership.CreateApiKeyResponse__Output>('CreateApiKey', {}, user.id);
    expect(created.key).toMatch(/^[0-9a-f]{32}$/);
    expect(created.api_key).toMatchObject({ enabled: true, hint: created.key.slice(-4) });
    const list = await h.call<membership.ListApiKeysResponse__Output>('ListApiKeys', {}, user.id);
    expect(list.api_keys).toHaveLength(2);
    await expect(codeOf(h.call('DeleteApiKey', { api_key_id: created.api_key!.id }, other.id))).resolves.toBe(
      status.NOT_FOUND,
    );
    const deleted = await h.call<membership.DeleteApiKeyResponse__Output>(
      'DeleteApiKey',
      { api_key_id: created.api_key!.id },
      user.id,
    );
    expect(deleted.key_hash).toMatch(/^[0-9a-f]{64}$/);
    await expect(codeOf(h.call('AuthenticateApiKey', { api_key: created.key }))).resolves.toBe(
      status.UNAUTHENTICATED,
    );
  });

  it('updates the current user; clashes are ALREADY_EXISTS', async () => {
    const user = await newUser();
    const other = await newUser('other');
    const res = await h.call<membership.UpdateCurrentUserResponse__Output>(
      'UpdateCurrentUser',
      { name: 'George Oscar', bio: 'Illusions' },
      user.id,
    );
    expect(res.user).toMatchObject({ name: 'George Oscar', bio: 'Illusions', user_name: user.user_name });
    expect(res.api_key_hashes).toHaveLength(1);
    await expect(
      codeOf(h.call('UpdateCurrentUser', { email: other.email.toUpperCase() }, user.id)),
    ).resolves.toBe(status.ALREADY_EXISTS);
  });
});
