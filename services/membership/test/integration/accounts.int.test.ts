import { status } from '@grpc/grpc-js';
import type * as grpc from '@grpc/grpc-js';
import type { membership } from '@flowboard/proto';
import { uniqueSuffix } from '@flowboard/testing';
import { codeOf, startHarness, type Harness } from './harness';

jest.setTimeout(60_000);

const STORAGE_DEFAULT = 5_000_000;

let h: Harness;
beforeAll(async () => {
  // No default collaborator limit (the shipped default); limits are set per account as an operator would.
  h = await startHarness({ DEFAULT_STORAGE_LIMIT_BYTES: String(STORAGE_DEFAULT) });
});
afterAll(async () => {
  await h?.close();
});

const newUser = async (tag = 'lucille') => (await h.signUp(tag)).user;

async function newProject(ownerId: number) {
  const { project, roles } = await h.newProject(ownerId, 'Bluth Company');
  return { project, membersRole: roles.Members! };
}

const account = async (userId: number) =>
  (await h.call<membership.GetAccountResponse__Output>('GetAccount', {}, userId)).account!;

const setLimit = (userId: number, request: Partial<membership.UpdateAccountRequest>) =>
  h.call<membership.UpdateAccountResponse__Output>('UpdateAccount', { user_id: userId, ...request });

const invite = (
  ownerId: number,
  projectId: number,
  roleId: number,
  email = `x-${uniqueSuffix()}@example.test`,
) =>
  h.call<membership.CreateInviteResponse__Output>(
    'CreateInvite',
    { project_id: projectId, email, role_id: roleId },
    ownerId,
  );

/** The failure's gRPC code and message, for checking 402s (FAILED_PRECONDITION + PLAN_LIMIT_EXCEEDED). */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => ({ code: 'OK' as const, details: '' }),
    (err: grpc.ServiceError) => ({ code: err.code, details: err.details }),
  );

describe('accounts', () => {
  it('gives every user an account at sign-up, with the configured defaults', async () => {
    const user = await newUser();
    const { rows } = await h.pool.query(
      'SELECT collaborator_limit, storage_limit_bytes FROM accounts WHERE user_id = $1',
      [user.id],
    );
    expect(rows).toEqual([{ collaborator_limit: null, storage_limit_bytes: null }]);
    const a = await account(user.id);
    expect(a).toMatchObject({ id: user.id, collaborators_used: 0, storage_limit_bytes: STORAGE_DEFAULT });
    expect(a.collaborator_limit).toBeUndefined();
  });

  it('creates a missing account lazily (users from before accounts existed are also backfilled)', async () => {
    const user = await newUser();
    await h.pool.query('DELETE FROM accounts WHERE user_id = $1', [user.id]);
    expect((await account(user.id)).storage_limit_bytes).toBe(STORAGE_DEFAULT);
    const { project, membersRole } = await newProject(user.id);
    await invite(user.id, project.id, membersRole.id);
    const { rows } = await h.pool.query('SELECT 1 FROM accounts WHERE user_id = $1', [user.id]);
    expect(rows).toHaveLength(1);
  });

  it('sets and resets limits; unknown users are NOT_FOUND, negative limits INVALID_ARGUMENT', async () => {
    const user = await newUser();
    const set = await setLimit(user.id, { collaborator_limit: 3, storage_limit_bytes: 1234 });
    expect(set.account).toMatchObject({ id: user.id, collaborator_limit: 3, storage_limit_bytes: 1234 });
    // Only what is given changes.
    const partly = await setLimit(user.id, { storage_limit_bytes: 99 });
    expect(partly.account).toMatchObject({ collaborator_limit: 3, storage_limit_bytes: 99 });
    const reset = await setLimit(user.id, { reset_collaborator_limit: true, reset_storage_limit: true });
    expect(reset.account!.collaborator_limit).toBeUndefined();
    expect(reset.account!.storage_limit_bytes).toBe(STORAGE_DEFAULT);

    expect(await codeOf(setLimit(2 ** 40, { collaborator_limit: 1 }))).toBe(status.NOT_FOUND);
    expect(await codeOf(setLimit(user.id, { collaborator_limit: -1 }))).toBe(status.INVALID_ARGUMENT);
  });

  it("answers a project's account (its owner's) and storage limit", async () => {
    const owner = await newUser();
    const { project } = await newProject(owner.id);
    await setLimit(owner.id, { storage_limit_bytes: 777 });
    const res = await h.call<membership.GetProjectAccountResponse__Output>('GetProjectAccount', {
      project_id: project.id,
    });
    expect(res).toEqual({ account_id: owner.id, storage_limit_bytes: 777 });
    expect(await codeOf(h.call('GetProjectAccount', { project_id: 2 ** 40 }))).toBe(status.NOT_FOUND);
  });

  it('counts distinct people other than the owner across the projects, pending invites included', async () => {
    const owner = await newUser();
    const [bob, ann] = [await newUser('bob'), await newUser('ann')];
    const one = await newProject(owner.id);
    const two = await newProject(owner.id);
    await h.call('AddProjectMember', { project_id: one.project.id, user: { id: bob.id } }, owner.id);
    await h.call('AddProjectMember', { project_id: two.project.id, user: { id: bob.id } }, owner.id);
    expect((await account(owner.id)).collaborators_used).toBe(1); // bob, once

    // Ann's own address invited to the other project: still one person each.
    await invite(owner.id, two.project.id, two.membersRole.id, ann.email.toUpperCase());
    await h.call(
      'AddRoleMember',
      { project_id: one.project.id, role_id: one.membersRole.id, user: { id: ann.id } },
      owner.id,
    );
    const stranger = `stranger-${uniqueSuffix()}@example.test`;
    await invite(owner.id, one.project.id, one.membersRole.id, stranger);
    await invite(owner.id, two.project.id, two.membersRole.id, stranger);
    expect((await account(owner.id)).collaborators_used).toBe(3); // bob, ann, stranger

    // Expired invites do not count.
    await h.pool.query(
      "UPDATE invites SET created_at = now() - interval '30 days', expires_at = now() - interval '1 day' WHERE lower(email) = lower($1)",
      [stranger],
    );
    expect((await account(owner.id)).collaborators_used).toBe(2);
    // Being a member of someone else's project does not count for that user's own account.
    expect((await account(bob.id)).collaborators_used).toBe(0);
  });

  it('refuses each adding operation over the limit with PLAN_LIMIT_EXCEEDED, changing nothing', async () => {
    const owner = await newUser();
    const [bob, ann, gob] = [await newUser('bob'), await newUser('ann'), await newUser('gob')];
    const { project, membersRole } = await newProject(owner.id);
    await setLimit(owner.id, { collaborator_limit: 1 });
    await h.call('AddProjectMember', { project_id: project.id, user: { id: bob.id } }, owner.id);

    const refusals = [
      failure(invite(owner.id, project.id, membersRole.id)),
      failure(h.call('AddProjectMember', { project_id: project.id, user: { id: ann.id } }, owner.id)),
      failure(
        h.call(
          'AddRoleMember',
          { project_id: project.id, role_id: membersRole.id, user: { id: ann.id } },
          owner.id,
        ),
      ),
      failure(
        h.call(
          'SetRoleMembers',
          { project_id: project.id, role_id: membersRole.id, users: [{ id: bob.id }, { id: gob.id }] },
          owner.id,
        ),
      ),
    ];
    for (const refusal of await Promise.all(refusals)) {
      expect(refusal.code).toBe(status.FAILED_PRECONDITION);
      expect(refusal.details).toMatch(/2 collaborators; its limit is 1/);
    }
    const members = await h.call<membership.ListProjectMembersResponse__Output>(
      'ListProjectMembers',
      { project_id: project.id, where: '' },
      owner.id,
    );
    expect(members.members.map((u) => u.id).sort()).toEqual([owner.id, bob.id].sort());
    expect((await account(owner.id)).collaborators_used).toBe(1);

    // Changes that add nobody still work: bob into another role, and the owner into one.
    const { role } = await h.call<membership.CreateRoleResponse__Output>(
      'CreateRole',
      { project_id: project.id, name: 'Readers', access: 'ACCESS_READ' },
      owner.id,
    );
    await h.call(
      'AddRoleMember',
      { project_id: project.id, role_id: role!.id, user: { id: bob.id } },
      owner.id,
    );
    await h.call(
      'AddRoleMember',
      { project_id: project.id, role_id: role!.id, user: { id: owner.id } },
      owner.id,
    );
  });

  it('lets an accepted invite through when it trades an invited address for a member, not when it adds one', async () => {
    const owner = await newUser();
    const [bob, ann] = [await newUser('bob'), await newUser('ann')];
    const one = await newProject(owner.id);
    const two = await newProject(owner.id);
    await setLimit(owner.id, { collaborator_limit: 1 });
    // Bob's invite to one project is accepted: the invited address (his) becomes a member: still 1.
    const { invite: forBob } = await invite(owner.id, one.project.id, one.membersRole.id, bob.email);
    await h.call('AcceptInvite', { token: forBob!.token }, bob.id);
    expect((await account(owner.id)).collaborators_used).toBe(1);

    // Room for one more: an address invited to both projects; ann accepts one of them with her own account
    // (the token suffices), while the address stays invited to the other: that would be 2 > 1.
    await setLimit(owner.id, { collaborator_limit: 2 });
    const shared = `shared-${uniqueSuffix()}@example.test`;
    const { invite: first } = await invite(owner.id, one.project.id, one.membersRole.id, shared);
    await invite(owner.id, two.project.id, two.membersRole.id, shared);
    const refused = await failure(h.call('AcceptInvite', { token: first!.token }, ann.id));
    expect(refused.code).toBe(status.FAILED_PRECONDITION);
    // Refused means rolled back: the invite is still there to be accepted once there is room.
    await setLimit(owner.id, { collaborator_limit: 3 });
    await h.call('AcceptInvite', { token: first!.token }, ann.id);
    expect((await account(owner.id)).collaborators_used).toBe(3);
  });

  it("applies the new owner's limit when a project changes hands", async () => {
    const owner = await newUser();
    const [bob, carl] = [await newUser('bob'), await newUser('carl')];
    const { project } = await newProject(owner.id);
    for (const u of [bob, carl])
      await h.call('AddProjectMember', { project_id: project.id, user: { id: u.id } }, owner.id);
    // Bob's account would hold the old owner and carl: 2 collaborators.
    await setLimit(bob.id, { collaborator_limit: 1 });
    const transfer = () =>
      h.call('UpdateProject', { project_id: project.id, owner: { id: bob.id } }, owner.id);
    expect(await codeOf(transfer())).toBe(status.FAILED_PRECONDITION);
    await setLimit(bob.id, { collaborator_limit: 2 });
    expect(await codeOf(transfer())).toBe('OK');
    expect((await account(bob.id)).collaborators_used).toBe(2);
    expect((await account(owner.id)).collaborators_used).toBe(0);
  });

  it('never overshoots under concurrency: 20 invites to two projects against a limit of 5', async () => {
    const owner = await newUser();
    const one = await newProject(owner.id);
    const two = await newProject(owner.id);
    await setLimit(owner.id, { collaborator_limit: 5 });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        codeOf(
          i % 2 === 0
            ? invite(owner.id, one.project.id, one.membersRole.id)
            : invite(owner.id, two.project.id, two.membersRole.id),
        ),
      ),
    );
    expect(results.filter((c) => c === 'OK')).toHaveLength(5);
    expect(results.filter((c) => c === status.FAILED_PRECONDITION)).toHaveLength(15);
    expect((await account(owner.id)).collaborators_used).toBe(5);
  });

  it('never overshoots when invites and member adds race each other', async () => {
    const owner = await newUser();
    const users = await Promise.all(Array.from({ length: 6 }, () => newUser('racer')));
    const { project, membersRole } = await newProject(owner.id);
    await setLimit(owner.id, { collaborator_limit: 4 });
    const results = await Promise.all([
      ...users.map((u, i) =>
        codeOf(
          i % 2 === 0
            ? h.call('AddProjectMember', { project_id: project.id, user: { id: u.id } }, owner.id)
            : h.call(
                'AddRoleMember',
                { project_id: project.id, role_id: membersRole.id, user: { id: u.id } },
                owner.id,
              ),
        ),
      ),
      ...Array.from({ length: 6 }, () => codeOf(invite(owner.id, project.id, membersRole.id))),
    ]);
    expect(results.filter((c) => c === 'OK')).toHaveLength(4);
    expect((await account(owner.id)).collaborators_used).toBe(4);
  });
});
