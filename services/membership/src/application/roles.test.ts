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
    // Leaving or deleting the role keeps the user a project member, with access none.
    await roles.delete(owner.id, { projectId: project.id, roleId: readers.id });
    expect(await access(maeby.id)).toBe('none');
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
