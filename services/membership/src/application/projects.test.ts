import { DomainError } from '@flowboard/service-kit';
import { InMemoryDatabase } from '../../test/fakes/in-memory-database';
import { createCreateProject } from './create-project';
import { createGetProject } from './get-project';
import { createGetProjectAccess } from './get-project-access';
import type { User } from './ports';

describe('projects and access', () => {
  let db: InMemoryDatabase;
  let owner: User;
  let other: User;

  beforeEach(async () => {
    db = new InMemoryDatabase();
    owner = await db.repos.users.insert({ name: 'Gob Bluth', userName: 'gob', email: 'gob@bluth.com' });
    other = await db.repos.users.insert({ name: 'Maeby Funke', userName: 'maeby', email: 'maeby@funke.com' });
  });

  const create = () =>
    createCreateProject({ db })(owner.id, { name: ' Sudden Valley ', description: 'chicken' });

  it('creates the project with the owner, an Administrators role holding them and a Members role', async () => {
    const { project, owner: returnedOwner } = await create();
    expect(project).toMatchObject({
      name: 'Sudden Valley',
      description: 'chicken',
      details: '',
      ownerId: owner.id,
    });
    expect(returnedOwner.id).toBe(owner.id);

    const view = await createGetProject({ db })(owner.id, {
      projectId: project.id,
      includeRoles: true,
      includeMembers: true,
    });
    expect(view.roles.map((r) => [r.name, r.access, r.members.map((m) => m.id)])).toEqual([
      ['Administrators', 'admin', [owner.id]],
      ['Members', 'readwrite', []],
    ]);
    expect(view.members.map((m) => m.id)).toEqual([owner.id]);
  });

  it('gives the owner admin, role members their highest role, and hides the project from strangers', async () => {
    const { project } = await create();
    const access = createGetProjectAccess({ db });
    expect(await access(owner.id, project.id)).toMatchObject({
      access: 'admin',
      isOwner: true,
      project: { name: 'Sudden Valley' },
    });

    await expect(access(other.id, project.id)).rejects.toMatchObject({
      kind: 'NotFound',
      message: 'Project not found',
    });
    await expect(access(owner.id, 999)).rejects.toMatchObject({
      kind: 'NotFound',
      message: 'Project not found',
    });

    const members = db.state.roles.find((r) => r.projectId === project.id && r.name === 'Members')!;
    await db.repos.roles.addMember(members.id, other.id);
    expect(await access(other.id, project.id)).toMatchObject({ access: 'readwrite', isOwner: false });

    const readers = await db.repos.roles.insert({ projectId: project.id, name: 'Readers', access: 'read' });
    await db.repos.roles.addMember(readers.id, other.id);
    expect((await access(other.id, project.id)).access).toBe('readwrite');
  });

  it('refuses a project without a name', async () => {
    const error = await createCreateProject({ db })(owner.id, { name: '  ' }).catch((e: DomainError) => e);
    expect(error).toMatchObject({ kind: 'InvalidArgument' });
    expect(db.state.projects).toHaveLength(0);
  });

  it('answers NotFound to non-members asking for the project', async () => {
    const { project } = await create();
    await expect(
      createGetProject({ db })(other.id, { projectId: project.id, includeRoles: true, includeMembers: true }),
    ).rejects.toMatchObject({ kind: 'NotFound' });
  });
});
