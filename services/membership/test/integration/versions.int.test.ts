import { status } from '@grpc/grpc-js';
import { projectDeletedV1 } from '@flowboard/events';
import type { membership } from '@flowboard/proto';
import { fromGrpcError } from '@flowboard/service-kit';
import { startHarness, type Harness } from './harness';

// Versions of projects and roles (migration 0004) and conditional writes (expected_version).
jest.setTimeout(30_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** The error a call failed with, as the gateway's client sees it (a DomainError of some kind). */
async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (err) {
    return fromGrpcError(err);
  }
  throw new Error('expected the call to fail');
}

/** A call that must fail with PreconditionFailed; answers its message. */
async function preconditionFailed(promise: Promise<unknown>): Promise<string> {
  const error = await failure(promise);
  expect(error.kind).toBe('PreconditionFailed');
  return error.message;
}

const getProject = (projectId: number, userId: number, includeRoles = false) =>
  h.call<membership.GetProjectResponse__Output>(
    'GetProject',
    { project_id: projectId, include_roles: includeRoles },
    userId,
  );
const updateProject = (request: Partial<membership.UpdateProjectRequest>, userId: number) =>
  h.call<membership.UpdateProjectResponse__Output>('UpdateProject', request, userId).then((r) => r.project!);
const getRole = (projectId: number, roleId: number, userId: number) =>
  h
    .call<membership.GetRoleResponse__Output>('GetRole', { project_id: projectId, role_id: roleId }, userId)
    .then((r) => r.role!);
const updateRole = (request: Partial<membership.UpdateRoleRequest>, userId: number) =>
  h.call<membership.UpdateRoleResponse__Output>('UpdateRole', request, userId).then((r) => r.role!);

/** The project's outbox rows: all of them, or those of one topic. */
const outboxRows = async (projectId: number, topic?: string) =>
  Number(
    (
      await h.pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM outbox WHERE key = $1 AND ($2::text IS NULL OR topic = $2)',
        [String(projectId), topic ?? null],
      )
    ).rows[0]!.n,
  );

describe('project versions', () => {
  it('start at 1 and rise by exactly 1 per change of a shown field; no-ops leave them', async () => {
    const { user: owner } = await h.signUp('pv-owner');
    const { user: bob } = await h.signUp('pv-bob');
    const { project } = await h.newProject(owner.id);
    expect(project.version).toBe(1);
    const key = { project_id: project.id };

    expect((await updateProject({ ...key, name: 'Renamed' }, owner.id)).version).toBe(2);
    expect((await updateProject({ ...key, name: 'Renamed', details: '' }, owner.id)).version).toBe(2);
    expect((await updateProject({ ...key, description: 'd', details: 'x' }, owner.id)).version).toBe(3);
    // Members and roles are not the project's own fields.
    await h.call('AddProjectMember', { ...key, user: { id: bob.id } }, owner.id);
    expect((await getProject(project.id, owner.id)).project!.version).toBe(3);
    expect((await updateProject({ ...key, owner: { id: bob.id } }, owner.id)).version).toBe(4);

    const listed = await h.call<membership.ListProjectsResponse__Output>(
      'ListProjects',
      { page: 1, page_size: 100 },
      bob.id,
    );
    expect(listed.projects.find((e) => e.project!.id === project.id)!.project!.version).toBe(4);
  });

  it('a conditional update needs the current version, checked after access and before owner and limit', async () => {
    const { user: owner } = await h.signUp('pc-owner');
    const { user: bob } = await h.signUp('pc-bob');
    const { user: carl } = await h.signUp('pc-carl');
    const { user: stranger } = await h.signUp('pc-stranger');
    const { project } = await h.newProject(owner.id);
    const key = { project_id: project.id };
    for (const u of [bob, carl]) await h.call('AddProjectMember', { ...key, user: { id: u.id } }, owner.id);
    const updated = await updateProject({ ...key, name: 'v2', expected_version: 1 }, owner.id);
    expect(updated.version).toBe(2);

    expect(
      await preconditionFailed(updateProject({ ...key, name: 'x', expected_version: 1 }, owner.id)),
    ).toBe(`Project ${project.id} is at version 2, not 1.`);
    expect(
      await preconditionFailed(updateProject({ ...key, name: 'x', expected_version: 3 }, owner.id)),
    ).toMatch(/version 2, not 3/);
    // A new owner who is no member (400), or whose account is full (402): the version comes first.
    await preconditionFailed(
      updateProject({ ...key, owner: { id: stranger.id }, expected_version: 1 }, owner.id),
    );
    await h.call('UpdateAccount', { user_id: bob.id, collaborator_limit: 0 });
    await preconditionFailed(updateProject({ ...key, owner: { id: bob.id }, expected_version: 1 }, owner.id));
    expect(
      (await failure(updateProject({ ...key, owner: { id: bob.id }, expected_version: 2 }, owner.id))).kind,
    ).toBe('PlanLimitExceeded');
    // Too little access (carl joined the Members role: readwrite) is refused for that, whatever the version.
    expect((await failure(updateProject({ ...key, name: 'x', expected_version: 1 }, carl.id))).kind).toBe(
      'PermissionDenied',
    );
    expect((await getProject(project.id, owner.id)).project).toEqual(updated);

    const missing = { project_id: project.id + 1_000_000_000, name: 'x', expected_version: 1 };
    expect((await failure(updateProject(missing, owner.id))).kind).toBe('NotFound');
    // Unconditional writes are as before.
    expect((await updateProject({ ...key, name: 'free' }, owner.id)).version).toBe(3);
  });

  it('a conditional delete needs the current version; a stale one deletes nothing and sends no event', async () => {
    const { user: owner } = await h.signUp('pd-owner');
    const { user: admin } = await h.signUp('pd-admin');
    const { project, roles } = await h.newProject(owner.id);
    const key = { project_id: project.id };
    await h.call(
      'AddRoleMember',
      { ...key, role_id: roles.Administrators!.id, user: { id: admin.id } },
      owner.id,
    );
    await updateProject({ ...key, name: 'v2' }, owner.id);
    // The role change wrote its change events; the refused deletes must add nothing.
    const written = await outboxRows(project.id);

    expect(await preconditionFailed(h.call('DeleteProject', { ...key, expected_version: 1 }, owner.id))).toBe(
      `Project ${project.id} is at version 2, not 1.`,
    );
    // Only the owner may delete (403), whatever the version.
    expect((await failure(h.call('DeleteProject', { ...key, expected_version: 1 }, admin.id))).kind).toBe(
      'PermissionDenied',
    );
    expect((await getProject(project.id, owner.id)).project!.version).toBe(2);
    expect(await outboxRows(project.id)).toBe(written);
    expect(await outboxRows(project.id, projectDeletedV1.topic)).toBe(0);

    await h.call('DeleteProject', { ...key, expected_version: 2 }, owner.id);
    expect(await outboxRows(project.id, projectDeletedV1.topic)).toBe(1);
    expect(await outboxRows(project.id)).toBe(written + 1); // nothing but the project event
    expect((await failure(h.call('DeleteProject', { ...key, expected_version: 2 }, owner.id))).kind).toBe(
      'NotFound',
    );
    const other = await h.newProject(owner.id);
    await h.call('DeleteProject', { project_id: other.project.id }, owner.id);
    expect((await failure(getProject(other.project.id, owner.id))).kind).toBe('NotFound');
  });
});

describe('role versions', () => {
  it('start at 1 and rise with name and access; members and no-ops leave them; every read shows them', async () => {
    const { user: owner } = await h.signUp('rv-owner');
    const { user: bob } = await h.signUp('rv-bob');
    const { project } = await h.newProject(owner.id);
    const key = { project_id: project.id };
    const { role } = await h.call<membership.CreateRoleResponse__Output>(
      'CreateRole',
      { ...key, name: 'Readers', access: 'ACCESS_READ' },
      owner.id,
    );
    expect(role!.version).toBe(1);
    const ref = { ...key, role_id: role!.id };

    expect((await updateRole({ ...ref, name: 'Viewers' }, owner.id)).version).toBe(2);
    expect((await updateRole({ ...ref, name: 'Viewers', access: 'ACCESS_READ' }, owner.id)).version).toBe(2);
    expect((await updateRole({ ...ref, access: 'ACCESS_READWRITE' }, owner.id)).version).toBe(3);
    await h.call('AddRoleMember', { ...ref, user: { id: bob.id } }, owner.id);
    await h.call('SetRoleMembers', { ...ref, users: [{ id: owner.id }] }, owner.id);
    expect((await getRole(project.id, role!.id, owner.id)).version).toBe(3);

    const listed = await h.call<membership.ListRolesResponse__Output>('ListRoles', key, owner.id);
    const withRoles = await getProject(project.id, owner.id, true);
    const projects = await h.call<membership.ListProjectsResponse__Output>(
      'ListProjects',
      { page: 1, page_size: 100, include_roles: true },
      owner.id,
    );
    const entry = projects.projects.find((e) => e.project!.id === project.id)!;
    const versionOf = (list: membership.Role__Output[]) => list.find((r) => r.id === role!.id)!.version;
    expect([versionOf(listed.roles), versionOf(withRoles.roles), versionOf(entry.roles)]).toEqual([3, 3, 3]);
  });

  it('a conditional update or delete needs the current version, before the last-admin rule; NotFound first', async () => {
    const { user: owner } = await h.signUp('rc-owner');
    const { project, roles } = await h.newProject(owner.id);
    const admins = { project_id: project.id, role_id: roles.Administrators!.id };
    const renamed = await updateRole({ ...admins, name: 'Admins', expected_version: 1 }, owner.id);
    expect(renamed.version).toBe(2);

    expect(
      await preconditionFailed(updateRole({ ...admins, name: 'x', expected_version: 1 }, owner.id)),
    ).toBe(`Role ${admins.role_id} is at version 2, not 1.`);
    // Taking admin access from the only admin role breaks the last-admin rule (409), but after the version.
    await preconditionFailed(updateRole({ ...admins, access: 'ACCESS_READ', expected_version: 1 }, owner.id));
    expect(
      (await failure(updateRole({ ...admins, access: 'ACCESS_READ', expected_version: 2 }, owner.id))).kind,
    ).toBe('Conflict');
    await preconditionFailed(h.call('DeleteRole', { ...admins, expected_version: 1 }, owner.id));
    expect((await failure(h.call('DeleteRole', { ...admins, expected_version: 2 }, owner.id))).kind).toBe(
      'Conflict',
    );
    expect(await getRole(project.id, admins.role_id, owner.id)).toEqual(renamed);

    const membersRole = { project_id: project.id, role_id: roles.Members!.id };
    const missing = { project_id: project.id, role_id: admins.role_id + 1_000_000_000, expected_version: 1 };
    expect((await failure(updateRole({ ...missing, name: 'x' }, owner.id))).kind).toBe('NotFound');
    expect((await failure(h.call('DeleteRole', missing, owner.id))).kind).toBe('NotFound');

    await preconditionFailed(h.call('DeleteRole', { ...membersRole, expected_version: 2 }, owner.id));
    await h.call('DeleteRole', { ...membersRole, expected_version: 1 }, owner.id);
    expect((await failure(getRole(project.id, membersRole.role_id, owner.id))).kind).toBe('NotFound');
    const { role: extra } = await h.call<membership.CreateRoleResponse__Output>(
      'CreateRole',
      { project_id: project.id, name: 'Extra' },
      owner.id,
    );
    await h.call('DeleteRole', { project_id: project.id, role_id: extra!.id }, owner.id);
  });

  it('of 10 concurrent updates at one version exactly one wins; the version rises by one', async () => {
    const { user: owner } = await h.signUp('rr-owner');
    const { project, roles } = await h.newProject(owner.id);
    const ref = { project_id: project.id, role_id: roles.Members!.id };
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        updateRole({ ...ref, name: `writer ${i}`, expected_version: 1 }, owner.id),
      ),
    );
    const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const lost = results.flatMap((r) => (r.status === 'rejected' ? [fromGrpcError(r.reason).kind] : []));
    expect(won).toHaveLength(1);
    expect(lost).toEqual(Array(9).fill('PreconditionFailed'));
    const final = await getRole(project.id, ref.role_id, owner.id);
    expect([final.version, final.name]).toEqual([2, won[0]!.name]);
  });

  it('answers FAILED_PRECONDITION with reason VERSION_MISMATCH on the wire', async () => {
    const { user: owner } = await h.signUp('rw-owner');
    const { project, roles } = await h.newProject(owner.id);
    const err = await h
      .call(
        'UpdateRole',
        { project_id: project.id, role_id: roles.Members!.id, name: 'x', expected_version: 7 },
        owner.id,
      )
      .then(
        () => undefined,
        (e: { code: number; metadata: { get(key: string): unknown[] } }) => e,
      );
    expect(err?.code).toBe(status.FAILED_PRECONDITION);
    expect(err?.metadata.get('flowboard-error-reason')).toEqual(['VERSION_MISMATCH']);
  });
});
