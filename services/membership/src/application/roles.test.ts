import { DomainError } from '@flowboard/service-kit';
import { InMemoryDatabase, NO_LIMITS } from '../../test/fakes/in-memory-database';
import { createCreateProject } from './create-project';
import { createGetProjectAccess } from './get-project-access';
import type { Project, User } from './ports';
import { createRoleMemberUseCases } from './role-members';
import { createRoleUseCases } from './roles';

const kindOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (e: unknown) => (e instanceof DomainError ? e.kind : String(e)),
  );

describe('roles and members', () => {
  let db: InMemoryDatabase;
  let owner: User;
  let maeby: User;
  let project: Project;
  let roles: ReturnType<typeof createRoleUseCases>;
  let members: ReturnType<typeof createRoleMemberUseCases>;
  let adminRoleId: number;

  beforeEach(async () => {
    db = new InMemoryDatabase();
    owner = await db.repos.users.insert({ name: 'Gob Bluth', userName: 'gob', email: 'gob@bluth.com' });
    maeby = await db.repos.users.insert({ name: 'Maeby Funke', userName: 'maeby', email: 'maeby@funke.com' });
    project = (await createCreateProject({ db })(owner.id, { name: 'Sudden Valley' })).project;
    roles = createRoleUseCases({ db });
    members = createRoleMemberUseCases({ db, limits: NO_LIMITS });
    adminRoleId = (await roles.list(owner.id, { projectId: project.id, where: 'name:administrators' }))[0]!
      .id;
  });

  const access = (userId: number) => createGetProjectAccess({ db })(userId, project.id).then((a) => a.access);

  it('creates a role with access none by default and filters by name', async () => {
    const role = await roles.create(owner.id, { projectId: project.id, name: ' Readers ' });
    expect(role).toMatchObject({ name: 'Readers', access: 'none', members: [] });
    const found = await roles.list(owner.id, { projectId: project.id, where: 'name:readers or name:"x y"' });
    expect(found.map((r) => r.id)).toEqual([role.id]);
  });

  it('gives a member the highest access among their roles, and lowering a role lowers it', async () => {
    const readers = await roles.create(owner.id, { projectId: project.id, name: 'Readers', access: 'read' });
    const writers = await roles.create(owner.id, { projectId: project.id, name: 'W', access: 'readwrite' });
    await members.add(owner.id, {
      projectId: project.id,
      roleId: readers.id,
      user: { id: 0, userName: 'MAEBY' },
    });
    await members.add(owner.id, {
      projectId: project.id,
      roleId: writers.id,
      user: { id: maeby.id, userName: '' },
    });
    expect(await access(maeby.id)).toBe('readwrite');
    await roles.update(owner.id, { projectId: project.id, roleId: writers.id, access: 'none' });
    expect(await access(maeby.id)).toBe('read');
    // Deleting one of two roles leaves the other's access (none here): still a member.
    await roles.delete(owner.id, { projectId: project.id, roleId: readers.id });
    expect(await access(maeby.id)).toBe('none');
  });

  it('removes a user who loses their last role from the project, by every route; never the owner', async () => {
    const [a, b, c] = [
      await db.repos.users.insert({ name: 'A', userName: 'a', email: 'a@x.test' }),
      await db.repos.users.insert({ name: 'B', userName: 'b', email: 'b@x.test' }),
      await db.repos.users.insert({ name: 'C', userName: 'c', email: 'c@x.test' }),
    ];
    const first = await roles.create(owner.id, { projectId: project.id, name: 'First', access: 'read' });
    const second = await roles.create(owner.id, { projectId: project.id, name: 'Second', access: 'read' });
    const add = (roleId: number, userId: number) =>
      members.add(owner.id, { projectId: project.id, roleId, user: { id: userId, userName: '' } });
    for (const u of [maeby, a, b, c, owner]) await add(first.id, u.id);
    await add(second.id, maeby.id);

    // Leaving one role of two keeps the user; leaving the last one does not.
    await members.remove(owner.id, {
      projectId: project.id,
      roleId: first.id,
      user: { id: maeby.id, userName: '' },
      where: '',
    });
    expect(await access(maeby.id)).toBe('read');
    const left = await members.remove(owner.id, {
      projectId: project.id,
      roleId: second.id,
      user: { id: maeby.id, userName: '' },
      where: '',
    });
    expect(left).toEqual([]);
    expect(await kindOf(access(maeby.id))).toBe('NotFound');

    // Replacing the set: those left out with no other role go, the ones kept stay.
    await members.set(owner.id, {
      projectId: project.id,
      roleId: first.id,
      users: [
        { id: b.id, userName: '' },
        { id: c.id, userName: '' },
      ],
    });
    expect(await kindOf(access(a.id))).toBe('NotFound');
    expect(await access(b.id)).toBe('read');
    expect(await access(owner.id)).toBe('admin');

    // Deleting the role: its members with no other role go; the owner, left with no role at all, stays.
    await add(adminRoleId, a.id);
    await add(first.id, owner.id);
    await members.remove(owner.id, {
      projectId: project.id,
      roleId: adminRoleId,
      user: { id: owner.id, userName: '' },
      where: '',
    });
    await roles.delete(owner.id, { projectId: project.id, roleId: first.id });
    expect(await kindOf(access(b.id))).toBe('NotFound');
    expect(await kindOf(access(c.id))).toBe('NotFound');
    expect(await access(owner.id)).toBe('admin');
    const rows = db.state.projectMembers.filter((m) => m.projectId === project.id).map((m) => m.userId);
    expect(rows.sort()).toEqual([owner.id, a.id].sort());
  });

  it('only lets admins write, and readers read', async () => {
    const readers = await roles.create(owner.id, { projectId: project.id, name: 'Readers', access: 'read' });
    await members.add(owner.id, {
      projectId: project.id,
      roleId: readers.id,
      user: { id: maeby.id, userName: '' },
    });
    expect(await kindOf(roles.list(maeby.id, { projectId: project.id, where: '' }))).toBe('ok');
    expect(await kindOf(roles.create(maeby.id, { projectId: project.id, name: 'x' }))).toBe(
      'PermissionDenied',
    );
  });

  it('refuses to remove the last admin role member, by any route (409)', async () => {
    const remove = members.remove(owner.id, {
      projectId: project.id,
      roleId: adminRoleId,
      user: { id: owner.id, userName: '' },
      where: '',
    });
    expect(await kindOf(remove)).toBe('Conflict');
    expect(
      await kindOf(members.set(owner.id, { projectId: project.id, roleId: adminRoleId, users: [] })),
    ).toBe('Conflict');
    expect(
      await kindOf(roles.update(owner.id, { projectId: project.id, roleId: adminRoleId, access: 'read' })),
    ).toBe('Conflict');
    expect(await kindOf(roles.delete(owner.id, { projectId: project.id, roleId: adminRoleId }))).toBe(
      'Conflict',
    );
    // With a second admin, the owner may leave the role (and stays admin as the owner).
    await members.add(owner.id, {
      projectId: project.id,
      roleId: adminRoleId,
      user: { id: maeby.id, userName: '' },
    });
    const left = await members.remove(owner.id, {
      projectId: project.id,
      roleId: adminRoleId,
      user: { id: 0, userName: 'gob' },
      where: '',
    });
    expect(left.map((u) => u.id)).toEqual([maeby.id]);
    expect(await access(owner.id)).toBe('admin');
  });

  it('rejects unknown user references (400) and unknown roles (404)', async () => {
    const add = members.add(owner.id, {
      projectId: project.id,
      roleId: adminRoleId,
      user: { id: 0, userName: 'nobody' },
    });
    expect(await kindOf(add)).toBe('InvalidArgument');
    expect(await kindOf(roles.get(owner.id, { projectId: project.id, roleId: 999 }))).toBe('NotFound');
    const notIn = members.remove(owner.id, {
      projectId: project.id,
      roleId: adminRoleId,
      user: { id: maeby.id, userName: '' },
      where: '',
    });
    expect(await kindOf(notIn)).toBe('NotFound');
  });
});
