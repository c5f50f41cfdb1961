import { status } from '@grpc/grpc-js';
import { parseEvent, projectDeletedV1, resourceChangedV1 } from '@flowboard/events';
import { createKafka, ensureTopics } from '@flowboard/messaging';
import type { membership } from '@flowboard/proto';
import { createLogger } from '@flowboard/service-kit';
import {
  assertMatchesTopicSchema,
  changeEventLog,
  changeEventsInOutbox,
  tailTopic,
  uniqueSuffix,
} from '@flowboard/testing';
import { codeOf, startHarness, type Harness } from './harness';

// flowboard.resource-changed.v1: what each membership write puts in the outbox (in its transaction), compared
// with what the service's own Get RPCs answer; nothing for a refused write; the relay publishes in order.
jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const WRITTEN_BY = { source: 'membership', requestId: 'test' };
/** The project's change events in the outbox, in the order they were written (and are published). */
const eventsOf = (projectId: number) => changeEventsInOutbox(h.pool, projectId, WRITTEN_BY);
/** Each call answers the events (their data) written since the previous call. */
const eventLog = (projectId: number) => changeEventLog(h.pool, projectId, WRITTEN_BY);

const user = async (tag = 'member') => (await h.signUp(tag)).user;

/** A project of a new owner, its default roles, and its event log (creating it publishes nothing). */
async function newProject() {
  const owner = await user('owner');
  const { project, roles } = await h.newProject(owner.id);
  const next = eventLog(project.id);
  expect(await next()).toEqual([]);
  return { owner, project, roles, next, key: { project_id: project.id } };
}

const getRole = (project_id: number, role_id: number, callerId: number) =>
  h
    .call<membership.GetRoleResponse__Output>('GetRole', { project_id, role_id }, callerId)
    .then((r) => r.role!);
const getMember = (project_id: number, userId: number, callerId: number) =>
  h
    .call<membership.GetProjectMemberResponse__Output>(
      'GetProjectMember',
      { project_id, user: { id: userId } },
      callerId,
    )
    .then((r) => r.user!);
const getInvite = (project_id: number, invite_id: number, callerId: number) =>
  h
    .call<membership.GetInviteResponse__Output>('GetInvite', { project_id, invite_id }, callerId)
    .then((r) => r.invite!);

describe('roles', () => {
  it('create, update (only a real change), delete; a stale or last-admin write publishes nothing', async () => {
    const { owner, project, roles, next, key } = await newProject();
    const change = { projectId: project.id, actorId: owner.id };

    const { role } = await h.call<membership.CreateRoleResponse__Output>(
      'CreateRole',
      { ...key, name: 'Readers', access: 'ACCESS_READ' },
      owner.id,
    );
    expect(await next()).toEqual([
      {
        ...change,
        type: 'role.created',
        subject: `role:${role!.id}`,
        resource: await getRole(project.id, role!.id, owner.id),
      },
    ]);

    const edit = { ...key, role_id: role!.id };
    await h.call('UpdateRole', { ...edit, name: 'Viewers' }, owner.id);
    const renamed = await getRole(project.id, role!.id, owner.id);
    expect(renamed).toMatchObject({ name: 'Viewers', version: 2 });
    expect(await next()).toEqual([
      { ...change, type: 'role.updated', subject: `role:${role!.id}`, resource: renamed },
    ]);
    await h.call('UpdateRole', { ...edit, name: 'Viewers', access: 'ACCESS_READ' }, owner.id);
    expect(await codeOf(h.call('UpdateRole', { ...edit, name: 'x', expected_version: 1 }, owner.id))).toBe(
      status.FAILED_PRECONDITION,
    );
    expect(await codeOf(h.call('DeleteRole', { ...edit, expected_version: 1 }, owner.id))).toBe(
      status.FAILED_PRECONDITION,
    );
    // The owner is the only admin: deleting Administrators would leave none (409), after the delete ran.
    expect(await codeOf(h.call('DeleteRole', { ...key, role_id: roles.Administrators!.id }, owner.id))).toBe(
      status.ABORTED,
    );
    expect(await next()).toEqual([]);

    await h.call('DeleteRole', edit, owner.id);
    expect(await next()).toEqual([
      { ...change, type: 'role.deleted', subject: `role:${role!.id}`, resource: renamed },
    ]);
  });

  it('deleting a role: member.removed for whom it was the last role, invite.deleted for its invites', async () => {
    const { owner, project, roles, next, key } = await newProject();
    const [only, both] = [await user('only'), await user('both')];
    const { role } = await h.call<membership.CreateRoleResponse__Output>(
      'CreateRole',
      { ...key, name: 'Temps', access: 'ACCESS_READ' },
      owner.id,
    );
    await h.call(
      'SetRoleMembers',
      { ...key, role_id: role!.id, users: [{ id: only.id }, { id: both.id }] },
      owner.id,
    );
    await h.call('AddRoleMember', { ...key, role_id: roles.Members!.id, user: { id: both.id } }, owner.id);
    const { invite } = await h.call<membership.CreateInviteResponse__Output>(
      'CreateInvite',
      { ...key, email: `temp-${uniqueSuffix()}@example.test`, role_id: role!.id },
      owner.id,
    );
    const [before, invited, onlyAsMember] = [
      await getRole(project.id, role!.id, owner.id),
      await getInvite(project.id, invite!.id, owner.id),
      await getMember(project.id, only.id, owner.id),
    ];
    await next();

    await h.call('DeleteRole', { ...key, role_id: role!.id }, owner.id);
    const change = { projectId: project.id, actorId: owner.id };
    expect(await next()).toEqual([
      { ...change, type: 'role.deleted', subject: `role:${role!.id}`, resource: before },
      { ...change, type: 'member.removed', subject: `member:${only.id}`, resource: onlyAsMember },
      { ...change, type: 'invite.deleted', subject: `invite:${invite!.id}`, resource: invited },
    ]);
    expect(before.members.map((m) => m.id).sort()).toEqual([only.id, both.id].sort());
    expect(await codeOf(getMember(project.id, both.id, owner.id))).toBe('OK');
  });
});

describe('role members', () => {
  it('joining a role: role.updated, then member.added only for a user new to the project', async () => {
    const { owner, project, roles, next, key } = await newProject();
    const change = { projectId: project.id, actorId: owner.id };
    const newcomer = await user('newcomer');
    const members = { ...key, role_id: roles.Members!.id };
    const admins = { ...key, role_id: roles.Administrators!.id };

    await h.call('AddRoleMember', { ...members, user: { id: newcomer.id } }, owner.id);
    expect(await next()).toEqual([
      {
        ...change,
        type: 'role.updated',
        subject: `role:${roles.Members!.id}`,
        resource: await getRole(project.id, roles.Members!.id, owner.id),
      },
      {
        ...change,
        type: 'member.added',
        subject: `member:${newcomer.id}`,
        resource: await getMember(project.id, newcomer.id, owner.id),
      },
    ]);

    // Already a member of the project, now in a second role too: the role changed, the membership did not.
    await h.call('AddRoleMember', { ...admins, user: { id: newcomer.id } }, owner.id);
    expect(await next()).toEqual([
      {
        ...change,
        type: 'role.updated',
        subject: `role:${roles.Administrators!.id}`,
        resource: await getRole(project.id, roles.Administrators!.id, owner.id),
      },
    ]);
    // In the role already: nothing changes.
    await h.call('AddRoleMember', { ...admins, user: { id: newcomer.id } }, owner.id);
    expect(await next()).toEqual([]);
  });

  it('leaving a role: role.updated, then member.removed when it was their last role', async () => {
    const { owner, project, roles, next, key } = await newProject();
    const change = { projectId: project.id, actorId: owner.id };
    const u = await user();
    const members = { ...key, role_id: roles.Members!.id };
    const admins = { ...key, role_id: roles.Administrators!.id };
    await h.call('AddRoleMember', { ...members, user: { id: u.id } }, owner.id);
    await h.call('AddRoleMember', { ...admins, user: { id: u.id } }, owner.id);
    const asMember = await getMember(project.id, u.id, owner.id);
    await next();

    await h.call('RemoveRoleMember', { ...admins, user: { id: u.id } }, owner.id);
    expect(await next()).toEqual([
      {
        ...change,
        type: 'role.updated',
        subject: `role:${roles.Administrators!.id}`,
        resource: await getRole(project.id, roles.Administrators!.id, owner.id),
      },
    ]);
    await h.call('RemoveRoleMember', { ...members, user: { id: u.id } }, owner.id);
    expect(await next()).toEqual([
      {
        ...change,
        type: 'role.updated',
        subject: `role:${roles.Members!.id}`,
        resource: await getRole(project.id, roles.Members!.id, owner.id),
      },
      { ...change, type: 'member.removed', subject: `member:${u.id}`, resource: asMember },
    ]);
    expect(await codeOf(h.call('RemoveRoleMember', { ...members, user: { id: u.id } }, owner.id))).toBe(
      status.NOT_FOUND,
    );
    expect(await next()).toEqual([]);
  });

  it("replacing a role's members: role.updated, member.added, member.removed; the same set: nothing", async () => {
    const { owner, project, roles, next, key } = await newProject();
    const change = { projectId: project.id, actorId: owner.id };
    const [stays, leaves, joins] = [await user('stays'), await user('leaves'), await user('joins')];
    const members = { ...key, role_id: roles.Members!.id };
    await h.call('SetRoleMembers', { ...members, users: [{ id: stays.id }, { id: leaves.id }] }, owner.id);
    const leaving = await getMember(project.id, leaves.id, owner.id);
    await next();

    await h.call('SetRoleMembers', { ...members, users: [{ id: stays.id }, { id: joins.id }] }, owner.id);
    expect(await next()).toEqual([
      {
        ...change,
        type: 'role.updated',
        subject: `role:${roles.Members!.id}`,
        resource: await getRole(project.id, roles.Members!.id, owner.id),
      },
      {
        ...change,
        type: 'member.added',
        subject: `member:${joins.id}`,
        resource: await getMember(project.id, joins.id, owner.id),
      },
      { ...change, type: 'member.removed', subject: `member:${leaves.id}`, resource: leaving },
    ]);
    await h.call('SetRoleMembers', { ...members, users: [{ id: joins.id }, { id: stays.id }] }, owner.id);
    expect(await next()).toEqual([]);
  });

  it('a write refused by the collaborator limit (402) publishes nothing', async () => {
    const { owner, roles, next, key } = await newProject();
    await h.call('UpdateAccount', { user_id: owner.id, collaborator_limit: 0 });
    const stranger = await user('stranger');
    expect(
      await codeOf(
        h.call('AddRoleMember', { ...key, role_id: roles.Members!.id, user: { id: stranger.id } }, owner.id),
      ),
    ).toBe(status.FAILED_PRECONDITION);
    expect(await codeOf(h.call('AddProjectMember', { ...key, user: { id: stranger.id } }, owner.id))).toBe(
      status.FAILED_PRECONDITION,
    );
    expect(await next()).toEqual([]);
  });
});

describe('project members', () => {
  it('adding: member.added, then role.updated for Members; an existing member: nothing', async () => {
    const { owner, project, roles, next, key } = await newProject();
    const change = { projectId: project.id, actorId: owner.id };
    const u = await user();
    await h.call('AddProjectMember', { ...key, user: { id: u.id } }, owner.id);
    expect(await next()).toEqual([
      {
        ...change,
        type: 'member.added',
        subject: `member:${u.id}`,
        resource: await getMember(project.id, u.id, owner.id),
      },
      {
        ...change,
        type: 'role.updated',
        subject: `role:${roles.Members!.id}`,
        resource: await getRole(project.id, roles.Members!.id, owner.id),
      },
    ]);
    await h.call('AddProjectMember', { ...key, user: { id: u.id } }, owner.id);
    expect(await next()).toEqual([]);
  });

  it('removing: member.removed, then role.updated for each role left; the owner (409): nothing', async () => {
    const { owner, project, roles, next, key } = await newProject();
    const change = { projectId: project.id, actorId: owner.id };
    const u = await user();
    await h.call('AddRoleMember', { ...key, role_id: roles.Members!.id, user: { id: u.id } }, owner.id);
    await h.call(
      'AddRoleMember',
      { ...key, role_id: roles.Administrators!.id, user: { id: u.id } },
      owner.id,
    );
    const asMember = await getMember(project.id, u.id, owner.id);
    await next();

    expect(await codeOf(h.call('RemoveProjectMember', { ...key, user: { id: owner.id } }, owner.id))).toBe(
      status.ABORTED,
    );
    expect(await next()).toEqual([]);
    await h.call('RemoveProjectMember', { ...key, user: { id: u.id } }, owner.id);
    const roleIds = [roles.Administrators!.id, roles.Members!.id].sort((a, b) => a - b);
    expect(await next()).toEqual([
      { ...change, type: 'member.removed', subject: `member:${u.id}`, resource: asMember },
      ...(await Promise.all(
        roleIds.map(async (id) => ({
          ...change,
          type: 'role.updated',
          subject: `role:${id}`,
          resource: await getRole(project.id, id, owner.id),
        })),
      )),
    ]);
  });

  it("an owner change adds and removes nobody; deleting the project publishes only membership's own event", async () => {
    const { owner, project, roles, next, key } = await newProject();
    const heir = await user('heir');
    await h.call(
      'AddRoleMember',
      { ...key, role_id: roles.Administrators!.id, user: { id: heir.id } },
      owner.id,
    );
    await next();
    await h.call('UpdateProject', { ...key, owner: { id: heir.id } }, owner.id);
    expect(await next()).toEqual([]);
    expect(await codeOf(getMember(project.id, owner.id, heir.id))).toBe('OK');
    await h.call('DeleteProject', key, heir.id);
    expect(await next()).toEqual([]);
    const { rows } = await h.pool.query<{ payload: unknown }>(
      'SELECT payload FROM outbox WHERE topic = $1 AND key = $2',
      [projectDeletedV1.topic, String(project.id)],
    );
    expect(rows).toHaveLength(1);
    assertMatchesTopicSchema(projectDeletedV1.topic, rows[0]!.payload); // the contract boards, files, webhooks read
  });
});

describe('invites', () => {
  it('created, deleted (as it was); an unknown invite: nothing', async () => {
    const { owner, project, roles, next, key } = await newProject();
    const change = { projectId: project.id, actorId: owner.id };
    const { invite } = await h.call<membership.CreateInviteResponse__Output>(
      'CreateInvite',
      { ...key, email: `invitee-${uniqueSuffix()}@example.test`, role_id: roles.Members!.id },
      owner.id,
    );
    const shown = await getInvite(project.id, invite!.id, owner.id);
    expect(shown).toEqual(invite);
    expect(await next()).toEqual([
      { ...change, type: 'invite.created', subject: `invite:${invite!.id}`, resource: shown },
    ]);
    await h.call('DeleteInvite', { ...key, invite_id: invite!.id }, owner.id);
    expect(await next()).toEqual([
      { ...change, type: 'invite.deleted', subject: `invite:${invite!.id}`, resource: shown },
    ]);
    expect(await codeOf(h.call('DeleteInvite', { ...key, invite_id: invite!.id }, owner.id))).toBe(
      status.NOT_FOUND,
    );
    expect(await next()).toEqual([]);
  });

  it('accepted by a newcomer: invite.accepted, member.added, role.updated, by the accepting user', async () => {
    const { owner, project, roles, next, key } = await newProject();
    const invite = async (roleId: number) =>
      (
        await h.call<membership.CreateInviteResponse__Output>(
          'CreateInvite',
          { ...key, email: `invitee-${uniqueSuffix()}@example.test`, role_id: roleId },
          owner.id,
        )
      ).invite!;
    const first = await invite(roles.Members!.id);
    await next();
    const newcomer = await user('newcomer');
    await h.call('AcceptInvite', { token: first.token }, newcomer.id);
    const change = { projectId: project.id, actorId: newcomer.id };
    expect(await next()).toEqual([
      { ...change, type: 'invite.accepted', subject: `invite:${first.id}`, resource: first },
      {
        ...change,
        type: 'member.added',
        subject: `member:${newcomer.id}`,
        resource: await getMember(project.id, newcomer.id, owner.id),
      },
      {
        ...change,
        type: 'role.updated',
        subject: `role:${roles.Members!.id}`,
        resource: await getRole(project.id, roles.Members!.id, owner.id),
      },
    ]);

    // A member accepting an invite to another role: only that role changed.
    const second = await invite(roles.Administrators!.id);
    await next();
    await h.call('AcceptInvite', { token: second.token }, newcomer.id);
    expect(await next()).toEqual([
      { ...change, type: 'invite.accepted', subject: `invite:${second.id}`, resource: second },
      {
        ...change,
        type: 'role.updated',
        subject: `role:${roles.Administrators!.id}`,
        resource: await getRole(project.id, roles.Administrators!.id, owner.id),
      },
    ]);
    // Taken: the token names nothing any more.
    expect(await codeOf(h.call('AcceptInvite', { token: second.token }, (await user()).id))).toBe(
      status.NOT_FOUND,
    );
    expect(await next()).toEqual([]);
  });
});

describe('relay', () => {
  it('publishes the events to Kafka in order, keyed by the project, as they are in the outbox', async () => {
    const kafka = createKafka({
      brokers: h.kafkaBrokers,
      clientId: 'membership-resource-events-test',
      logger: createLogger('test', 'silent'),
    });
    await ensureTopics(kafka, [resourceChangedV1.topic]);
    const tail = await tailTopic(kafka, resourceChangedV1.topic, 'membership-int-tail');
    try {
      const { owner, project, roles, key } = await newProject();
      const u = await user();
      await h.call('AddProjectMember', { ...key, user: { id: u.id } }, owner.id);
      await h.call('RemoveRoleMember', { ...key, role_id: roles.Members!.id, user: { id: u.id } }, owner.id);
      const outbox = await eventsOf(project.id);
      expect(outbox.map((e) => e.data.type)).toEqual([
        'member.added',
        'role.updated',
        'role.updated',
        'member.removed',
      ]);
      const published = await tail.values(String(project.id), outbox.length);
      expect(published.map((value) => parseEvent(resourceChangedV1, value))).toEqual(outbox);
    } finally {
      await tail.stop();
    }
  });
});
