import { DomainError } from '@flowboard/service-kit';
import { InMemoryDatabase } from '../../test/fakes/in-memory-database';
import { createAccountUseCases } from './accounts';
import { createCreateInvite } from './create-invite';
import { createCreateProject } from './create-project';
import { createProjectMemberUseCases } from './project-members';

const kindOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (e: unknown) => (e instanceof DomainError ? e.kind : String(e)),
  );

/** A default limit of 1 collaborator (config), and what an operator can change. */
async function setup() {
  const db = new InMemoryDatabase();
  const limits = { collaboratorLimit: 1, storageLimitBytes: 100 };
  const owner = await db.repos.users.insert({ name: 'Gob', userName: 'gob', email: 'gob@bluth.com' });
  const bob = await db.repos.users.insert({ name: 'Bob', userName: 'bob', email: 'bob@loblaw.com' });
  const ann = await db.repos.users.insert({ name: 'Ann', userName: 'ann', email: 'ann@veal.com' });
  const { project } = await createCreateProject({ db })(owner.id, { name: 'Sudden Valley' });
  const role = (await db.repos.roles.findByName(project.id, 'Members'))!;
  return {
    db,
    owner,
    bob,
    ann,
    project,
    role,
    accounts: createAccountUseCases({ db, defaults: limits }),
    members: createProjectMemberUseCases({ db, limits }),
    invite: createCreateInvite({ db, inviteTtlDays: 14, signal: jest.fn(), limits }),
  };
}

describe('accounts', () => {
  it('applies the configured default limit until an operator overrides it', async () => {
    const { owner, bob, ann, project, role, accounts, members, invite } = await setup();
    await members.add(owner.id, { projectId: project.id, user: { id: bob.id, userName: '' } });
    expect(
      await kindOf(members.add(owner.id, { projectId: project.id, user: { id: ann.id, userName: '' } })),
    ).toBe('PlanLimitExceeded');
    expect(
      await kindOf(invite(owner.id, { projectId: project.id, email: 'x@example.test', roleId: role.id })),
    ).toBe('PlanLimitExceeded');

    await accounts.update(owner.id, { collaboratorLimit: 3, storageLimitBytes: undefined });
    await members.add(owner.id, { projectId: project.id, user: { id: ann.id, userName: '' } });
    expect(await accounts.get(owner.id)).toEqual({
      id: owner.id,
      collaboratorLimit: 3,
      collaboratorsUsed: 2,
      storageLimitBytes: 100,
    });
    // null resets to the default (1): nothing is removed, but nobody more can be added.
    expect(
      (await accounts.update(owner.id, { collaboratorLimit: null, storageLimitBytes: 7 })).collaboratorLimit,
    ).toBe(1);
    expect(await accounts.getProjectAccount(project.id)).toEqual({
      accountId: owner.id,
      storageLimitBytes: 7,
    });
  });

  it('keeps the 409 before the 402 (docs/compat.md §3.3 order) and rolls a refusal back', async () => {
    const { db, owner, bob, project, role, members, invite } = await setup();
    await members.add(owner.id, { projectId: project.id, user: { id: bob.id, userName: '' } });
    // member.added and role.updated (Members) for bob; the refusals below must add nothing.
    const written = db.state.outbox.length;
    expect(written).toBe(2);
    expect(
      await kindOf(invite(owner.id, { projectId: project.id, email: 'BOB@loblaw.com', roleId: role.id })),
    ).toBe('AlreadyExists');
    expect(
      await kindOf(invite(owner.id, { projectId: project.id, email: 'new@example.test', roleId: role.id })),
    ).toBe('PlanLimitExceeded');
    expect(db.state.invites).toHaveLength(0);
    expect(db.state.outbox).toHaveLength(written);
  });

  it('refuses bad limits and unknown users', async () => {
    const { accounts } = await setup();
    expect(await kindOf(accounts.update(9999, { collaboratorLimit: 1, storageLimitBytes: undefined }))).toBe(
      'NotFound',
    );
    expect(await kindOf(accounts.update(1, { collaboratorLimit: -3, storageLimitBytes: undefined }))).toBe(
      'InvalidArgument',
    );
    expect(await kindOf(accounts.getProjectAccount(9999))).toBe('NotFound');
  });
});
