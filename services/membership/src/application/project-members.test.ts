import { DomainError } from '@flowboard/service-kit';
import { InMemoryDatabase, NO_LIMITS } from '../../test/fakes/in-memory-database';
import { createCreateProject } from './create-project';
import { createGetProjectAccess } from './get-project-access';
import { createProjectMemberUseCases } from './project-members';

const kindOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (e: unknown) => (e instanceof DomainError ? e.kind : String(e)),
  );

describe('project members', () => {
  it('join the Members role, leave every role on removal, and the owner cannot be removed', async () => {
    const db = new InMemoryDatabase();
    const owner = await db.repos.users.insert({ name: 'Gob', userName: 'gob', email: 'gob@bluth.com' });
    const bob = await db.repos.users.insert({ name: 'Bob', userName: 'bob', email: 'bob@loblaw.com' });
    const { project } = await createCreateProject({ db })(owner.id, { name: 'Sudden Valley' });
    const members = createProjectMemberUseCases({ db, limits: NO_LIMITS });
    const access = createGetProjectAccess({ db });

    const added = await members.add(owner.id, { projectId: project.id, user: { id: 0, userName: 'BOB' } });
    expect(added.map((u) => u.id)).toEqual([owner.id, bob.id]);
    expect((await access(bob.id, project.id)).access).toBe('readwrite');
    expect(
      (await members.add(owner.id, { projectId: project.id, user: { id: bob.id, userName: '' } })).length,
    ).toBe(2);
    expect(
      await members.get(bob.id, { projectId: project.id, user: { id: 0, userName: 'gob' } }),
    ).toMatchObject({
      id: owner.id,
    });
    expect(await kindOf(members.list(owner.id, { projectId: project.id, where: 'nope:x' }))).toBe(
      'InvalidArgument',
    );

    expect(
      await kindOf(members.remove(bob.id, { projectId: project.id, user: { id: owner.id, userName: '' } })),
    ).toBe('PermissionDenied');
    expect(
      await kindOf(members.remove(owner.id, { projectId: project.id, user: { id: owner.id, userName: '' } })),
    ).toBe('Conflict');
    await members.remove(owner.id, { projectId: project.id, user: { id: bob.id, userName: '' } });
    expect(await kindOf(access(bob.id, project.id))).toBe('NotFound');
    expect(db.state.roleMembers.some((m) => m.userId === bob.id)).toBe(false);
  });
});
