import { status } from '@grpc/grpc-js';
import type { membership } from '@flowboard/proto';
import { codeOf, startHarness, type Harness } from './harness';

/**
 * Losing one's last role of a project means leaving the project (spec: "project members are grouped into
 * roles"), by each route a role can be lost: RemoveRoleMember, SetRoleMembers and DeleteRole. The owner always
 * stays, and a member who never had a role (added with no "Members" role) is not touched.
 */
jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const newUser = async (tag: string) => (await h.signUp(tag)).user;

async function newProject(ownerId: number) {
  const { project, roles } = await h.newProject(ownerId);
  return { projectId: project.id, admins: roles.Administrators!, members: roles.Members! };
}

async function createRole(ownerId: number, projectId: number, name: string, access: membership.Access) {
  const { role } = await h.call<membership.CreateRoleResponse__Output>(
    'CreateRole',
    { project_id: projectId, name, access },
    ownerId,
  );
  return role!;
}

const join = (ownerId: number, projectId: number, roleId: number, userId: number) =>
  h.call('AddRoleMember', { project_id: projectId, role_id: roleId, user: { id: userId } }, ownerId);

const accessOf = (projectId: number, userId: number) =>
  h
    .call<membership.GetProjectAccessResponse__Output>('GetProjectAccess', { project_id: projectId }, userId)
    .then(
      (res) => res.access,
      (err: { code: status }) => (err.code === status.NOT_FOUND ? 'not a member' : Promise.reject(err)),
    );

const memberIds = async (projectId: number, callerId: number) =>
  (
    await h.call<membership.ListProjectMembersResponse__Output>(
      'ListProjectMembers',
      { project_id: projectId, where: '' },
      callerId,
    )
  ).members.map((u) => u.id);

const projectIdsOf = async (userId: number) =>
  (
    await h.call<membership.ListProjectsResponse__Output>(
      'ListProjects',
      { where: '', page: 1, page_size: 100 },
      userId,
    )
  ).projects.map((p) => p.project!.id);

const collaboratorsOf = async (ownerId: number) =>
  (await h.call<membership.GetAccountResponse__Output>('GetAccount', {}, ownerId)).account!
    .collaborators_used;

const projectMemberRows = async (projectId: number) =>
  (
    await h.pool.query<{ user_id: number }>(
      'SELECT user_id FROM project_members WHERE project_id = $1 ORDER BY user_id',
      [projectId],
    )
  ).rows.map((r) => Number(r.user_id));

describe('losing the last role', () => {
  it('RemoveRoleMember: another role keeps the user; the last one takes them out of the project', async () => {
    const owner = await newUser('owner');
    const ann = await newUser('ann');
    const { projectId, members } = await newProject(owner.id);
    const readers = await createRole(owner.id, projectId, 'Readers', 'ACCESS_READ');
    await join(owner.id, projectId, members.id, ann.id);
    await join(owner.id, projectId, readers.id, ann.id);
    expect(await collaboratorsOf(owner.id)).toBe(1);

    await h.call(
      'RemoveRoleMember',
      { project_id: projectId, role_id: members.id, user: { id: ann.id } },
      owner.id,
    );
    expect(await accessOf(projectId, ann.id)).toBe('ACCESS_READ');
    expect(await memberIds(projectId, owner.id)).toContain(ann.id);

    // The answer is still the role's remaining members (here none).
    const left = await h.call<membership.RemoveRoleMemberResponse__Output>(
      'RemoveRoleMember',
      { project_id: projectId, role_id: readers.id, user: { user_name: ann.user_name } },
      owner.id,
    );
    expect(left.members).toEqual([]);
    expect(await accessOf(projectId, ann.id)).toBe('not a member');
    expect(await memberIds(projectId, owner.id)).toEqual([owner.id]);
    expect(
      await codeOf(h.call('GetProjectMember', { project_id: projectId, user: { id: ann.id } }, owner.id)),
    ).toBe(status.NOT_FOUND);
    expect(await projectIdsOf(ann.id)).not.toContain(projectId);
    expect(await projectMemberRows(projectId)).toEqual([owner.id]);
    expect(await collaboratorsOf(owner.id)).toBe(0);
  });

  it('SetRoleMembers: those left out with no other role leave, so a swap at the collaborator limit fits', async () => {
    const owner = await newUser('owner');
    const [bob, carol, dan] = [await newUser('bob'), await newUser('carol'), await newUser('dan')];
    const { projectId, members } = await newProject(owner.id);
    const readers = await createRole(owner.id, projectId, 'Readers', 'ACCESS_READ');
    await join(owner.id, projectId, members.id, bob.id);
    await join(owner.id, projectId, members.id, dan.id);
    await join(owner.id, projectId, readers.id, dan.id);
    await h.call('UpdateAccount', { user_id: owner.id, collaborator_limit: 2 });

    // bob leaves and carol comes: still 2 collaborators, so no 402 (bob staying on would have made 3).
    const set = await h.call<membership.SetRoleMembersResponse__Output>(
      'SetRoleMembers',
      { project_id: projectId, role_id: members.id, users: [{ id: carol.id }] },
      owner.id,
    );
    expect(set.members.map((u) => u.id)).toEqual([carol.id]);
    expect(await accessOf(projectId, bob.id)).toBe('not a member');
    expect(await accessOf(projectId, dan.id)).toBe('ACCESS_READ');
    expect(await accessOf(projectId, carol.id)).toBe('ACCESS_READWRITE');
    expect(await memberIds(projectId, owner.id)).toEqual([owner.id, carol.id, dan.id].sort((a, b) => a - b));
    expect(await projectIdsOf(bob.id)).not.toContain(projectId);
    expect(await collaboratorsOf(owner.id)).toBe(2);
  });

  it('DeleteRole: its members with no other role leave; the owner, left with no role at all, stays', async () => {
    const owner = await newUser('owner');
    const [eve, fay] = [await newUser('eve'), await newUser('fay')];
    const { projectId, admins } = await newProject(owner.id);
    const temp = await createRole(owner.id, projectId, 'Temporary', 'ACCESS_READWRITE');
    await join(owner.id, projectId, temp.id, eve.id);
    await join(owner.id, projectId, temp.id, owner.id);
    await join(owner.id, projectId, admins.id, fay.id);
    await join(owner.id, projectId, temp.id, fay.id);
    await h.call(
      'RemoveRoleMember',
      { project_id: projectId, role_id: admins.id, user: { id: owner.id } },
      owner.id,
    );

    await h.call('DeleteRole', { project_id: projectId, role_id: temp.id }, owner.id);
    expect(await accessOf(projectId, eve.id)).toBe('not a member');
    expect(await accessOf(projectId, fay.id)).toBe('ACCESS_ADMIN');
    expect(await accessOf(projectId, owner.id)).toBe('ACCESS_ADMIN');
    expect(await projectMemberRows(projectId)).toEqual([owner.id, fay.id].sort((a, b) => a - b));
    expect(await projectIdsOf(eve.id)).not.toContain(projectId);
    expect(await projectIdsOf(owner.id)).toContain(projectId);
  });

  it('leaves a member who never had a role alone, until they lose a role they gained', async () => {
    const owner = await newUser('owner');
    const [gus, hal] = [await newUser('gus'), await newUser('hal')];
    const { projectId, members } = await newProject(owner.id);
    // No "Members" role: AddProjectMember makes gus a member without a role (access none).
    await h.call('DeleteRole', { project_id: projectId, role_id: members.id }, owner.id);
    await h.call('AddProjectMember', { project_id: projectId, user: { id: gus.id } }, owner.id);
    expect(await accessOf(projectId, gus.id)).toBe('ACCESS_NONE');

    const role = await createRole(owner.id, projectId, 'Writers', 'ACCESS_READWRITE');
    await join(owner.id, projectId, role.id, hal.id);
    await h.call('SetRoleMembers', { project_id: projectId, role_id: role.id, users: [] }, owner.id);
    expect(await accessOf(projectId, hal.id)).toBe('not a member');
    expect(await accessOf(projectId, gus.id)).toBe('ACCESS_NONE');

    await join(owner.id, projectId, role.id, gus.id);
    await h.call(
      'RemoveRoleMember',
      { project_id: projectId, role_id: role.id, user: { id: gus.id } },
      owner.id,
    );
    expect(await accessOf(projectId, gus.id)).toBe('not a member');
  });

  it('a refused change (last-admin rule) removes nobody: one transaction', async () => {
    const owner = await newUser('owner');
    const ida = await newUser('ida');
    const { projectId, admins } = await newProject(owner.id);
    await join(owner.id, projectId, admins.id, ida.id);

    expect(
      await codeOf(
        h.call('SetRoleMembers', { project_id: projectId, role_id: admins.id, users: [] }, owner.id),
      ),
    ).toBe(status.ABORTED);
    expect(await codeOf(h.call('DeleteRole', { project_id: projectId, role_id: admins.id }, owner.id))).toBe(
      status.ABORTED,
    );
    expect(await accessOf(projectId, ida.id)).toBe('ACCESS_ADMIN');
    expect(await projectMemberRows(projectId)).toEqual([owner.id, ida.id].sort((a, b) => a - b));
  });
});
