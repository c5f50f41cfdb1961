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

const signUp = async () => {
  const suffix = uniqueSuffix();
  const res = await h.call<membership.SignUpResponse__Output>('SignUp', {
    user_name: `roles-${suffix}`,
    email: `roles-${suffix}@example.test`,
  });
  return res.user!;
};

const newProject = async (ownerId: number) => {
  const { project } = await h.call<membership.CreateProjectResponse__Output>(
    'CreateProject',
    { name: 'Roles' },
    ownerId,
  );
  const { roles } = await h.call<membership.ListRolesResponse__Output>(
    'ListRoles',
    { project_id: project!.id },
    ownerId,
  );
  return { projectId: project!.id, admins: roles[0]!, members: roles[1]! };
};

const access = async (projectId: number, userId: number) =>
  (
    await h.call<membership.GetProjectAccessResponse__Output>(
      'GetProjectAccess',
      { project_id: projectId },
      userId,
    )
  ).access;

describe('roles', () => {
  it('creates, filters, updates and deletes roles; access follows at once', async () => {
    const owner = await signUp();
    const maeby = await signUp();
    const { projectId } = await newProject(owner.id);

    const { role } = await h.call<membership.CreateRoleResponse__Output>(
      'CreateRole',
      { project_id: projectId, name: ' Readers ' },
      owner.id,
    );
    expect(role).toMatchObject({ name: 'Readers', access: 'ACCESS_NONE', members: [] });

    const added = await h.call<membership.AddRoleMemberResponse__Output>(
      'AddRoleMember',
      { project_id: projectId, role_id: role!.id, user: { user_name: maeby.user_name.toUpperCase() } },
      owner.id,
    );
    expect(added.members.map((u) => u.id)).toEqual([maeby.id]);
    expect(await access(projectId, maeby.id)).toBe('ACCESS_NONE');

    // Unset fields of the update stay as they are.
    const updated = await h.call<membership.UpdateRoleResponse__Output>(
      'UpdateRole',
      { project_id: projectId, role_id: role!.id, access: 'ACCESS_READWRITE' },
      owner.id,
    );
    expect(updated.role).toMatchObject({ name: 'Readers', access: 'ACCESS_READWRITE' });
    expect(await access(projectId, maeby.id)).toBe('ACCESS_READWRITE');

    const filtered = await h.call<membership.ListRolesResponse__Output>(
      'ListRoles',
      { project_id: projectId, where: 'name:readers or name:"no such role"' },
      maeby.id,
    );
    expect(filtered.roles.map((r) => r.id)).toEqual([role!.id]);
    expect(await codeOf(h.call('ListRoles', { project_id: projectId, where: 'colour:red' }, owner.id))).toBe(
      status.INVALID_ARGUMENT,
    );

    // A readwrite member cannot write roles; a stranger sees nothing.
    expect(await codeOf(h.call('CreateRole', { project_id: projectId, name: 'x' }, maeby.id))).toBe(
      status.PERMISSION_DENIED,
    );
    const stranger = await signUp();
    expect(await codeOf(h.call('ListRoles', { project_id: projectId }, stranger.id))).toBe(status.NOT_FOUND);

    await h.call('DeleteRole', { project_id: projectId, role_id: role!.id }, owner.id);
    expect(await codeOf(h.call('GetRole', { project_id: projectId, role_id: role!.id }, owner.id))).toBe(
      status.NOT_FOUND,
    );
    // It was maeby's only role: no longer a project member at all.
    expect(await codeOf(access(projectId, maeby.id))).toBe(status.NOT_FOUND);
  });

  it('replaces members, removes by username and refuses unknown references', async () => {
    const owner = await signUp();
    const a = await signUp();
    const b = await signUp();
    const { projectId, members } = await newProject(owner.id);
    const set = await h.call<membership.SetRoleMembersResponse__Output>(
      'SetRoleMembers',
      { project_id: projectId, role_id: members.id, users: [{ id: b.id }, { user_name: a.user_name }] },
      owner.id,
    );
    expect(set.members.map((u) => u.id)).toEqual([a.id, b.id]);
    const left = await h.call<membership.RemoveRoleMemberResponse__Output>(
      'RemoveRoleMember',
      { project_id: projectId, role_id: members.id, user: { user_name: a.user_name } },
      owner.id,
    );
    expect(left.members.map((u) => u.id)).toEqual([b.id]);
    expect(
      await codeOf(
        h.call(
          'AddRoleMember',
          { project_id: projectId, role_id: members.id, user: { user_name: 'nobody-x' } },
          owner.id,
        ),
      ),
    ).toBe(status.INVALID_ARGUMENT);
    expect(
      await codeOf(
        h.call(
          'RemoveRoleMember',
          { project_id: projectId, role_id: members.id, user: { id: a.id } },
          owner.id,
        ),
      ),
    ).toBe(status.NOT_FOUND);
  });

  it('never lets two concurrent removals take away the last two admins', async () => {
    const owner = await signUp();
    const second = await signUp();
    const { projectId, admins } = await newProject(owner.id);
    await h.call(
      'AddRoleMember',
      { project_id: projectId, role_id: admins.id, user: { id: second.id } },
      owner.id,
    );

    const results = await Promise.all(
      [owner.id, second.id].map((userId) =>
        codeOf(
          h.call(
            'RemoveRoleMember',
            { project_id: projectId, role_id: admins.id, user: { id: userId } },
            owner.id,
          ),
        ),
      ),
    );
    expect(results).toHaveLength(2);
    expect(results).toEqual(expect.arrayContaining(['OK', status.ABORTED]));
    const { rows } = await h.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM role_members WHERE role_id = $1',
      [admins.id],
    );
    expect(rows[0]!.n).toBe(1);
  });

  it('refuses to lower or delete the only admin role (409)', async () => {
    const owner = await signUp();
    const { projectId, admins } = await newProject(owner.id);
    expect(
      await codeOf(
        h.call('UpdateRole', { project_id: projectId, role_id: admins.id, access: 'ACCESS_READ' }, owner.id),
      ),
    ).toBe(status.ABORTED);
    expect(await codeOf(h.call('DeleteRole', { project_id: projectId, role_id: admins.id }, owner.id))).toBe(
      status.ABORTED,
    );
    expect(
      await codeOf(
        h.call('SetRoleMembers', { project_id: projectId, role_id: admins.id, users: [] }, owner.id),
      ),
    ).toBe(status.ABORTED);
  });
});
