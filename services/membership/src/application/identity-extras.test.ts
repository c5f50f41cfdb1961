import { parseEvent, projectDeletedV1 } from '@flowboard/events';
import { InMemoryDatabase, NO_LIMITS } from '../../test/fakes/in-memory-database';
import { hashApiKey } from '../domain/secrets';
import { createApiKeyUseCases } from './api-keys';
import { createCreateInvite } from './create-invite';
import { createCreateProject } from './create-project';
import { createInviteUseCases } from './invites';
import { createProjectUseCases } from './projects';
import type { Project, Role, User } from './ports';
import { createUpdateCurrentUser } from './update-current-user';

const DAY_MS = 86_400_000;

describe('invites, projects, API keys and PUT /me', () => {
  let db: InMemoryDatabase;
  let owner: User;
  let maeby: User;
  let project: Project;
  let membersRole: Role;
  let invites: ReturnType<typeof createInviteUseCases>;
  let projects: ReturnType<typeof createProjectUseCases>;
  let signal: jest.Mock;

  const invite = (email: string) =>
    createCreateInvite({ db, inviteTtlDays: 14, signal: jest.fn(), limits: NO_LIMITS })(owner.id, {
      projectId: project.id,
      email,
      roleId: membersRole.id,
    });

  beforeEach(async () => {
    db = new InMemoryDatabase();
    owner = await db.repos.users.insert({ name: 'Gob Bluth', userName: 'gob', email: 'gob@bluth.com' });
    maeby = await db.repos.users.insert({ name: 'Maeby Funke', userName: 'maeby', email: 'maeby@funke.com' });
    ({ project } = await createCreateProject({ db })(owner.id, { name: 'Sudden Valley' }));
    membersRole = db.state.roles.find((r) => r.projectId === project.id && r.name === 'Members')!;
    invites = createInviteUseCases({ db, limits: NO_LIMITS });
    signal = jest.fn();
    projects = createProjectUseCases({ db, signal, limits: NO_LIMITS });
  });

  describe('invites', () => {
    it('lists pending invites for admins only; expired ones are neither listed, got nor accepted', async () => {
      const first = await invite('a@example.test');
      expect((await invites.list(owner.id, project.id)).map((v) => v.invite.id)).toEqual([first.invite.id]);
      await expect(invites.list(maeby.id, project.id)).rejects.toMatchObject({ kind: 'NotFound' });

      db.now = new Date(db.now.getTime() + 15 * DAY_MS);
      expect(await invites.list(owner.id, project.id)).toEqual([]);
      await expect(
        invites.get(owner.id, { projectId: project.id, inviteId: first.invite.id }),
      ).rejects.toMatchObject({ kind: 'NotFound' });
      await expect(invites.accept(maeby.id, first.invite.token)).rejects.toMatchObject({ kind: 'NotFound' });
    });

    it('accept puts the caller in the role and the project, deletes the invite, answers the project', async () => {
      const { invite: created } = await invite('someone-else@example.test');
      const accepted = await invites.accept(maeby.id, created.token.toUpperCase());
      expect(accepted.project.id).toBe(project.id);
      expect(accepted.owner.id).toBe(owner.id);
      expect(db.state.roleMembers).toContainEqual({ roleId: membersRole.id, userId: maeby.id });
      expect(await db.repos.projects.isMember(project.id, maeby.id)).toBe(true);
      expect(db.state.invites).toEqual([]);
      await expect(invites.accept(maeby.id, created.token)).rejects.toMatchObject({ kind: 'NotFound' });
      await expect(invites.accept(maeby.id, 'not-a-token')).rejects.toMatchObject({ kind: 'NotFound' });
    });

    it('deletes a pending invite; unknown ids are 404', async () => {
      const { invite: created } = await invite('b@example.test');
      await invites.delete(owner.id, { projectId: project.id, inviteId: created.id });
      await expect(
        invites.delete(owner.id, { projectId: project.id, inviteId: created.id }),
      ).rejects.toMatchObject({ kind: 'NotFound' });
    });
  });

  describe('projects', () => {
    it("lists only the caller's projects, filtered by name and paged", async () => {
      const { project: other } = await createCreateProject({ db })(maeby.id, { name: 'Banana Stand' });
      const { project: second } = await createCreateProject({ db })(owner.id, { name: 'Model Home' });
      const list = (where = '', page = 1, pageSize = 100) =>
        projects.list(owner.id, { where, page, pageSize, includeRoles: true, includeMembers: false });
      expect((await list()).entries.map((e) => e.project.id)).toEqual([project.id, second.id]);
      expect((await list('name:"model home"')).entries.map((e) => e.project.id)).toEqual([second.id]);
      const paged = await list('', 2, 1);
      expect(paged).toMatchObject({ totalItems: 2 });
      expect(paged.entries.map((e) => e.project.id)).toEqual([second.id]);
      expect(paged.entries[0]!.roles.map((r) => r.name)).toEqual(['Administrators', 'Members']);
      expect((await list()).entries.map((e) => e.project.id)).not.toContain(other.id);
      await expect(list('colour:red')).rejects.toMatchObject({ kind: 'InvalidArgument' });
    });

    it('pages by keyset: id order after after_id, `more` and the total as the filtered list has them', async () => {
      const { project: second } = await createCreateProject({ db })(owner.id, { name: 'Model Home' });
      const { project: third } = await createCreateProject({ db })(owner.id, { name: 'model home' });
      const base = { where: '', page: 7, includeRoles: false, includeMembers: false };
      const list = (afterId: number, pageSize: number, where = '') =>
        projects.list(owner.id, { ...base, where, pageSize, keyset: { afterId } });
      const ids = (r: Awaited<ReturnType<typeof list>>) => r.entries.map((e) => e.project.id);

      const first = await list(0, 2);
      expect(ids(first)).toEqual([project.id, second.id]);
      expect(first).toMatchObject({ totalItems: 3, keyset: { more: true } });
      const last = await list(second.id, 2);
      expect(ids(last)).toEqual([third.id]);
      expect(last).toMatchObject({ totalItems: 3, keyset: { more: false } });
      expect(await list(third.id, 2)).toMatchObject({ entries: [], keyset: { more: false } });
      const filtered = await list(project.id, 1, 'name:"model home"');
      expect(ids(filtered)).toEqual([second.id]);
      expect(filtered).toMatchObject({ totalItems: 2, keyset: { more: true } });
      await expect(list(-1, 2)).rejects.toMatchObject({
        kind: 'InvalidArgument',
        problem: 'invalid-parameter',
      });
      // Without a keyset: the numbered page, and no keyset answer.
      const numbered = await projects.list(owner.id, { ...base, page: 1, pageSize: 2 });
      expect(ids(numbered)).toEqual([project.id, second.id]);
      expect(numbered.keyset).toBeUndefined();
    });

    it('updates fields and the owner; a new owner must be a member', async () => {
      await expect(
        projects.update(owner.id, { projectId: project.id, owner: { id: maeby.id, userName: '' } }),
      ).rejects.toMatchObject({ kind: 'InvalidArgument' });
      await db.repos.projects.addMember(project.id, maeby.id);
      const updated = await projects.update(owner.id, {
        projectId: project.id,
        name: ' Renamed ',
        owner: { id: 0, userName: 'MAEBY' },
      });
      expect(updated.project).toMatchObject({ name: 'Renamed', ownerId: maeby.id, description: '' });
      expect(updated.owner.id).toBe(maeby.id);
      await expect(projects.update(owner.id, { projectId: project.id, name: ' ' })).rejects.toMatchObject({
        kind: 'InvalidArgument',
      });
    });

    it('deletes for the owner only, with a project-deleted event in the same transaction', async () => {
      await db.repos.roles.addMember(db.state.roles.find((r) => r.name === 'Administrators')!.id, maeby.id);
      await expect(projects.delete(maeby.id, { projectId: project.id })).rejects.toMatchObject({
        kind: 'PermissionDenied',
      });
      expect(db.state.outbox).toEqual([]);
      await projects.delete(owner.id, { projectId: project.id });
      expect(db.state.projects).toEqual([]);
      expect(db.state.roles).toEqual([]);
      const [message] = db.state.outbox;
      expect(message).toMatchObject({ topic: 'membership.project-deleted.v1', key: String(project.id) });
      const event = parseEvent(projectDeletedV1, JSON.stringify(message!.payload));
      expect(event.data).toMatchObject({ projectId: project.id, ownerId: owner.id, deletedBy: owner.id });
      expect(signal).toHaveBeenCalledTimes(1);
      await expect(projects.delete(owner.id, { projectId: project.id })).rejects.toMatchObject({
        kind: 'NotFound',
      });
    });
  });

  describe('API keys and PUT /me', () => {
    it("creates, lists and deletes the caller's keys; another user's key is 404", async () => {
      const keys = createApiKeyUseCases({ db });
      const { apiKey, key } = await keys.create(owner.id, {
        name: '',
        expireTime: '',
        readOnly: false,
        projectIds: [],
        groups: [],
      });
      expect(apiKey).toMatchObject({ userId: owner.id, hint: key.slice(-4), enabled: true });
      expect(await keys.list(owner.id)).toEqual([apiKey]);
      await expect(keys.delete(maeby.id, apiKey.id)).rejects.toMatchObject({ kind: 'NotFound' });
      expect(await keys.delete(owner.id, apiKey.id)).toEqual({ keyHash: hashApiKey(key) });
      expect(await db.repos.users.findByApiKeyHash(hashApiKey(key))).toBeUndefined();
    });

    it('updates the caller; clashes name the field; answers the key hashes', async () => {
      const keys = createApiKeyUseCases({ db });
      const { key } = await keys.create(owner.id, {
        name: '',
        expireTime: '',
        readOnly: false,
        projectIds: [],
        groups: [],
      });
      const update = createUpdateCurrentUser({ db });
      const result = await update(owner.id, { name: 'George Oscar', bio: 'Illusions', userName: 'goB2' });
      expect(result.user).toMatchObject({ name: 'George Oscar', bio: 'Illusions', userName: 'goB2' });
      expect(result.apiKeyHashes).toEqual([hashApiKey(key)]);
      await expect(update(owner.id, { userName: 'MAEBY' })).rejects.toMatchObject({
        kind: 'AlreadyExists',
        message: expect.stringContaining('userName'),
      });
      await expect(update(owner.id, { email: 'MAEBY@funke.com' })).rejects.toMatchObject({
        message: expect.stringContaining('email'),
      });
      await expect(update(owner.id, { email: 'nope' })).rejects.toMatchObject({ kind: 'InvalidArgument' });
    });
  });
});
