import { inviteCreatedV1, parseEvent, resourceChangedV1 } from '@flowboard/events';
import { InMemoryDatabase, NO_LIMITS } from '../../test/fakes/in-memory-database';
import { createCreateInvite } from './create-invite';
import { createCreateProject } from './create-project';
import type { Project, Role, User } from './ports';
import { toInviteMessage } from './resource-messages';

describe('CreateInvite', () => {
  let db: InMemoryDatabase;
  let owner: User;
  let member: User;
  let project: Project;
  let membersRole: Role;
  let signal: jest.Mock;
  let invite: ReturnType<typeof createCreateInvite>;

  beforeEach(async () => {
    db = new InMemoryDatabase();
    owner = await db.repos.users.insert({ name: 'Gob Bluth', userName: 'gob', email: 'gob@bluth.com' });
    member = await db.repos.users.insert({
      name: 'Maeby Funke',
      userName: 'maeby',
      email: 'Maeby@funke.com',
    });
    ({ project } = await createCreateProject({ db })(owner.id, { name: 'Sudden Valley' }));
    membersRole = db.state.roles.find((r) => r.projectId === project.id && r.name === 'Members')!;
    signal = jest.fn();
    invite = createCreateInvite({ db, inviteTtlDays: 14, signal, limits: NO_LIMITS });
  });

  it('stores the invite and its event together, keyed by project, then wakes the relay', async () => {
    const created = await invite(owner.id, {
      projectId: project.id,
      email: ' Buster@Bluth.com ',
      roleId: membersRole.id,
      requestId: 'r1',
    });
    expect(created.invite).toMatchObject({
      email: 'Buster@Bluth.com',
      roleId: membersRole.id,
      senderId: owner.id,
    });
    expect(created.invite.token).toMatch(/^[0-9a-f]{32}$/);
    expect(created.invite.expiresAt.getTime() - created.invite.createdAt.getTime()).toBe(14 * 86_400_000);
    expect(created.sender.id).toBe(owner.id);
    expect(created.role).toMatchObject({ id: membersRole.id, name: 'Members' });

    // The notifier's event, then the webhooks' (flowboard.resource-changed.v1).
    expect(db.state.outbox).toHaveLength(2);
    const message = db.state.outbox[0]!;
    expect(message).toMatchObject({
      topic: inviteCreatedV1.topic,
      key: String(project.id),
      headers: { 'x-request-id': 'r1' },
    });
    const event = parseEvent(inviteCreatedV1, JSON.stringify(message.payload));
    expect(event.id).toBe(message.id);
    expect(event.data).toEqual({
      inviteId: created.invite.id,
      projectId: project.id,
      projectName: 'Sudden Valley',
      roleName: 'Members',
      email: 'Buster@Bluth.com',
      token: created.invite.token,
      senderName: 'Gob Bluth',
      expiresAt: created.invite.expiresAt.toISOString(),
    });
    const change = db.state.outbox[1]!;
    expect(change).toMatchObject({ topic: resourceChangedV1.topic, key: String(project.id) });
    expect(parseEvent(resourceChangedV1, JSON.stringify(change.payload)).data).toEqual({
      projectId: project.id,
      actorId: owner.id,
      type: 'invite.created',
      subject: `invite:${created.invite.id}`,
      resource: toInviteMessage(created.invite, created.sender, created.role),
    });
    expect(signal).toHaveBeenCalledTimes(1);
  });

  it('needs admin access, and hides the project from non-members', async () => {
    const input = { projectId: project.id, email: 'buster@bluth.com', roleId: membersRole.id };
    await expect(invite(member.id, input)).rejects.toMatchObject({ kind: 'NotFound' });
    await db.repos.roles.addMember(membersRole.id, member.id); // readwrite
    await expect(invite(member.id, input)).rejects.toMatchObject({ kind: 'PermissionDenied' });
    expect(db.state.invites).toHaveLength(0);
    expect(signal).not.toHaveBeenCalled();
  });

  it('rejects an invalid address and a role of another project', async () => {
    await expect(
      invite(owner.id, { projectId: project.id, email: 'nope', roleId: membersRole.id }),
    ).rejects.toMatchObject({
      kind: 'InvalidArgument',
      problem: 'invalid-field',
    });
    const { project: other } = await createCreateProject({ db })(owner.id, { name: 'Chicken Dance' });
    const foreignRole = db.state.roles.find((r) => r.projectId === other.id)!;
    for (const roleId of [foreignRole.id, 0, 9999]) {
      await expect(
        invite(owner.id, { projectId: project.id, email: 'buster@bluth.com', roleId }),
      ).rejects.toMatchObject({
        kind: 'InvalidArgument',
        problem: 'invalid-reference',
      });
    }
    expect(db.state.outbox).toHaveLength(0);
  });

  it('refuses a second pending invite for the same address, ignoring case, until the first expires', async () => {
    await invite(owner.id, { projectId: project.id, email: 'buster@bluth.com', roleId: membersRole.id });
    await expect(
      invite(owner.id, { projectId: project.id, email: 'BUSTER@bluth.com', roleId: membersRole.id }),
    ).rejects.toMatchObject({ kind: 'AlreadyExists' });
    expect(db.state.outbox).toHaveLength(2); // the first invite's two events, nothing for the refusal

    db.now = new Date(db.now.getTime() + 15 * 86_400_000);
    await invite(owner.id, { projectId: project.id, email: 'BUSTER@bluth.com', roleId: membersRole.id });
    expect(db.state.outbox).toHaveLength(4);
  });

  it('refuses to invite an existing member', async () => {
    await db.repos.roles.addMember(membersRole.id, member.id);
    await expect(
      invite(owner.id, { projectId: project.id, email: 'maeby@FUNKE.com', roleId: membersRole.id }),
    ).rejects.toMatchObject({ kind: 'AlreadyExists' });
    await expect(
      invite(owner.id, { projectId: project.id, email: 'gob@bluth.com', roleId: membersRole.id }),
    ).rejects.toMatchObject({ kind: 'AlreadyExists' });
  });
});
