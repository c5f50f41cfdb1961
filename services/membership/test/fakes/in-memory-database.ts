import { DomainError } from '@flowboard/service-kit';
import type {
  ApiKey,
  Database,
  Invite,
  OutboxMessage,
  Project,
  Repositories,
  Role,
  RoleWithMembers,
  User,
} from '../../src/application/ports';
import type { AccountDefaults, AccountOverrides } from '../../src/domain/account';
import type { AccessLevel, MembershipFacts } from '../../src/domain/access';
import type { NewProject } from '../../src/domain/project';
import type { NewUser } from '../../src/domain/user';
import { isPending } from '../../src/domain/invite';

interface State {
  users: Array<User & { enabled: boolean }>;
  apiKeys: Array<ApiKey & { keyHash: string }>;
  projects: Project[];
  projectMembers: Array<{ projectId: number; userId: number }>;
  roles: Role[];
  roleMembers: Array<{ roleId: number; userId: number }>;
  invites: Invite[];
  accounts: Array<{ userId: number } & AccountOverrides>;
  outbox: OutboxMessage[];
  nextId: number;
}

const DAY_MS = 86_400_000;

/**
 * The Database port in memory, for use-case tests. Transactions work on a copy of the state that replaces
 * the original only when the callback succeeds, so rollback is observable too.
 */
export class InMemoryDatabase implements Database {
  state: State = {
    users: [],
    apiKeys: [],
    projects: [],
    projectMembers: [],
    roles: [],
    roleMembers: [],
    invites: [],
    accounts: [],
    outbox: [],
    nextId: 1,
  };
  now = new Date('2025-01-02T03:04:05.678Z');

  get repos(): Repositories {
    return this.repositories(() => this.state);
  }

  async transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T> {
    const copy = structuredClone(this.state);
    const result = await fn(this.repositories(() => copy));
    this.state = copy;
    return result;
  }

  private repositories(s: () => State): Repositories {
    const id = () => s().nextId++;
    const strip = (u: User & { enabled?: boolean }): User => {
      const { enabled: _enabled, ...user } = u;
      return user;
    };
    const memberIds = (projectId: number): Set<number> => {
      const st = s();
      const ids = new Set<number>();
      const project = st.projects.find((p) => p.id === projectId);
      if (project) ids.add(project.ownerId);
      st.projectMembers.filter((m) => m.projectId === projectId).forEach((m) => ids.add(m.userId));
      const roleIds = new Set(st.roles.filter((r) => r.projectId === projectId).map((r) => r.id));
      st.roleMembers.filter((m) => roleIds.has(m.roleId)).forEach((m) => ids.add(m.userId));
      return ids;
    };
    const byId = <T extends { id: number }>(a: T, b: T) => a.id - b.id;
    const roleMembers = (roleId: number): User[] => {
      const ids = new Set(
        s()
          .roleMembers.filter((m) => m.roleId === roleId)
          .map((m) => m.userId),
      );
      return s()
        .users.filter((u) => ids.has(u.id))
        .sort(byId)
        .map(strip);
    };

    const account = (userId: number) => {
      const st = s();
      if (!st.users.some((u) => u.id === userId)) return undefined;
      let row = st.accounts.find((a) => a.userId === userId);
      if (!row) {
        row = { userId, collaboratorLimit: null, storageLimitBytes: null };
        st.accounts.push(row);
      }
      return row;
    };
    const overrides = (row: AccountOverrides | undefined): AccountOverrides | undefined =>
      row && { collaboratorLimit: row.collaboratorLimit, storageLimitBytes: row.storageLimitBytes };

    return {
      accounts: {
        ensure: async (userId) => void account(userId),
        lock: async (userId) => overrides(account(userId)),
        find: async (userId) => overrides(account(userId)),
        countCollaborators: async (ownerId) => {
          const st = s();
          const owned = new Set(st.projects.filter((p) => p.ownerId === ownerId).map((p) => p.id));
          const people = new Set<string>();
          for (const projectId of owned)
            for (const userId of memberIds(projectId))
              people.add(st.users.find((u) => u.id === userId)!.email.toLowerCase());
          st.invites
            .filter((i) => owned.has(i.projectId) && isPending(i, this.now))
            .forEach((i) => people.add(i.email.toLowerCase()));
          const owner = st.users.find((u) => u.id === ownerId);
          if (owner) people.delete(owner.email.toLowerCase());
          return people.size;
        },
        update: async (userId, changes) => {
          const row = account(userId);
          if (!row) return undefined;
          if (changes.collaboratorLimit !== undefined) row.collaboratorLimit = changes.collaboratorLimit;
          if (changes.storageLimitBytes !== undefined) row.storageLimitBytes = changes.storageLimitBytes;
          return overrides(row);
        },
      },
      users: {
        insert: async (user: NewUser) => {
          const st = s();
          if (st.users.some((u) => u.userName.toLowerCase() === user.userName.toLowerCase())) {
            throw new DomainError('AlreadyExists', 'A user with this userName already exists.');
          }
          if (st.users.some((u) => u.email.toLowerCase() === user.email.toLowerCase())) {
            throw new DomainError('AlreadyExists', 'A user with this email already exists.');
          }
          const created = { id: id(), ...user, bio: '', createdAt: this.now, enabled: true };
          st.users.push(created);
          return strip(created);
        },
        findById: async (userId) => {
          const u = s().users.find((x) => x.id === userId);
          return u && strip(u);
        },
        findByIds: async (ids) =>
          s()
            .users.filter((u) => ids.includes(u.id))
            .sort(byId)
            .map(strip),
        findByUserName: async (userName) => {
          const user = s().users.find((u) => u.userName.toLowerCase() === userName.toLowerCase());
          return user && strip(user);
        },
        findByApiKeyHash: async (hash) => {
          const key = s().apiKeys.find(
            (k) => k.keyHash === hash && k.enabled && (!k.expiresAt || k.expiresAt > this.now),
          );
          const u = key && s().users.find((x) => x.id === key.userId && x.enabled);
          if (!key || !u) return undefined;
          const { keyHash: _hash, ...apiKey } = key;
          return { user: strip(u), apiKey };
        },
        update: async (userId, changes) => {
          const st = s();
          const clash = (field: 'userName' | 'email') =>
            changes[field] !== undefined &&
            st.users.some(
              (u) => u.id !== userId && u[field].toLowerCase() === (changes[field] as string).toLowerCase(),
            );
          for (const field of ['userName', 'email'] as const) {
            if (clash(field))
              throw new DomainError('AlreadyExists', `A user with this ${field} already exists.`);
          }
          const user = st.users.find((u) => u.id === userId);
          if (!user) return undefined;
          for (const [k, v] of Object.entries(changes)) if (v !== undefined) Object.assign(user, { [k]: v });
          return strip(user);
        },
        setEnabled: async (userId, enabled) => {
          const user = s().users.find((u) => u.id === userId);
          if (!user) return undefined;
          user.enabled = enabled;
          return { user: strip(user), enabled };
        },
      },
      apiKeys: {
        insert: async ({ scope, ...key }) => {
          const row = {
            id: id(),
            ...key,
            ...(scope ?? { name: '', readOnly: false }),
            enabled: true,
            createdAt: this.now,
          };
          s().apiKeys.push(row);
          const { keyHash: _hash, ...record } = row;
          return record;
        },
        recordUses: async (uses) => {
          for (const use of uses) {
            const key = s().apiKeys.find((k) => k.id === use.id);
            if (key && (!key.lastUsedAt || key.lastUsedAt < use.usedAt)) key.lastUsedAt = use.usedAt;
          }
        },
        listByUser: async (userId) =>
          s()
            .apiKeys.filter((k) => k.userId === userId)
            .sort(byId)
            .map(({ keyHash: _hash, ...record }) => record),
        listHashes: async (userId) =>
          s()
            .apiKeys.filter((k) => k.userId === userId)
            .map((k) => k.keyHash),
        deleteForUser: async (keyId, userId) => {
          const st = s();
          const key = st.apiKeys.find((k) => k.id === keyId && k.userId === userId);
          st.apiKeys = st.apiKeys.filter((k) => k !== key);
          return key?.keyHash;
        },
        setEnabledForUser: async (keyId, userId, enabled) => {
          const key = s().apiKeys.find((k) => k.id === keyId && k.userId === userId);
          if (!key) return undefined;
          key.enabled = enabled;
          const { keyHash, ...apiKey } = key;
          return { apiKey, keyHash };
        },
      },
      projects: {
        insert: async (p: NewProject & { ownerId: number }) => {
          const project = { id: id(), ...p, createdAt: this.now, version: 1 };
          s().projects.push(project);
          return project;
        },
        addMember: async (projectId, userId) => {
          const st = s();
          if (st.projectMembers.some((m) => m.projectId === projectId && m.userId === userId)) return false;
          st.projectMembers.push({ projectId, userId });
          return true;
        },
        findById: async (projectId) => s().projects.find((p) => p.id === projectId),
        findWithMembership: async (projectId, userId) => {
          const st = s();
          const project = st.projects.find((p) => p.id === projectId);
          if (!project) return undefined;
          const roleIds = new Set(st.roleMembers.filter((m) => m.userId === userId).map((m) => m.roleId));
          const facts: MembershipFacts = {
            isOwner: project.ownerId === userId,
            isProjectMember: st.projectMembers.some((m) => m.projectId === projectId && m.userId === userId),
            roleAccess: st.roles
              .filter((r) => r.projectId === projectId && roleIds.has(r.id))
              .map((r) => r.access),
          };
          return { project, facts };
        },
        listMembers: async (projectId) => {
          const ids = memberIds(projectId);
          return s()
            .users.filter((u) => ids.has(u.id))
            .sort(byId)
            .map(strip);
        },
        hasMemberWithEmail: async (projectId, email) => {
          const ids = memberIds(projectId);
          return s().users.some((u) => ids.has(u.id) && u.email.toLowerCase() === email.toLowerCase());
        },
        lockMembership: async () => undefined,
        isMember: async (projectId, userId) => memberIds(projectId).has(userId),
        removeMember: async (projectId, userId) => {
          const st = s();
          const roleIds = new Set(st.roles.filter((r) => r.projectId === projectId).map((r) => r.id));
          const left = st.roleMembers
            .filter((m) => m.userId === userId && roleIds.has(m.roleId))
            .map((m) => m.roleId)
            .sort((a, b) => a - b);
          st.roleMembers = st.roleMembers.filter((m) => !(m.userId === userId && roleIds.has(m.roleId)));
          st.projectMembers = st.projectMembers.filter(
            (m) => !(m.userId === userId && m.projectId === projectId),
          );
          return left;
        },
        removeRolelessMembers: async (projectId, userIds) => {
          const st = s();
          const ownerId = st.projects.find((p) => p.id === projectId)?.ownerId;
          const roleIds = new Set(st.roles.filter((r) => r.projectId === projectId).map((r) => r.id));
          const inARole = (userId: number) =>
            st.roleMembers.some((m) => m.userId === userId && roleIds.has(m.roleId));
          const stays = (m: { projectId: number; userId: number }) =>
            m.projectId !== projectId ||
            !userIds.includes(m.userId) ||
            m.userId === ownerId ||
            inARole(m.userId);
          const removed = st.projectMembers.filter((m) => !stays(m)).map((m) => m.userId);
          st.projectMembers = st.projectMembers.filter(stays);
          return removed.sort((a, b) => a - b);
        },
        listForUser: async (userId) => {
          const st = s();
          return st.projects.filter((p) => memberIds(p.id).has(userId)).sort(byId);
        },
        listReadableForUser: async (userId) => {
          const st = s();
          const readable = new Set(
            st.roleMembers
              .filter((m) => m.userId === userId)
              .map((m) => st.roles.find((r) => r.id === m.roleId))
              .filter((r) => r !== undefined && r.access !== 'none')
              .map((r) => r?.projectId),
          );
          return st.projects
            .filter((p) => p.ownerId === userId || readable.has(p.id))
            .sort(byId)
            .map((p) => ({ id: p.id, name: p.name }));
        },
        update: async (projectId, changes) => {
          const project = s().projects.find((p) => p.id === projectId);
          if (!project) return undefined;
          // As migration 0004's trigger: the version rises once when a shown field changes.
          const changed = Object.entries(changes).some(
            ([k, v]) => v !== undefined && project[k as keyof typeof project] !== v,
          );
          for (const [k, v] of Object.entries(changes))
            if (v !== undefined) Object.assign(project, { [k]: v });
          if (changed) project.version++;
          return project;
        },
        delete: async (projectId) => {
          const st = s();
          const roleIds = new Set(st.roles.filter((r) => r.projectId === projectId).map((r) => r.id));
          st.projects = st.projects.filter((p) => p.id !== projectId);
          st.projectMembers = st.projectMembers.filter((m) => m.projectId !== projectId);
          st.roles = st.roles.filter((r) => r.projectId !== projectId);
          st.roleMembers = st.roleMembers.filter((m) => !roleIds.has(m.roleId));
          st.invites = st.invites.filter((i) => i.projectId !== projectId);
        },
        countAdminRoleMembers: async (projectId) => {
          const st = s();
          const admin = new Set(
            st.roles.filter((r) => r.projectId === projectId && r.access === 'admin').map((r) => r.id),
          );
          return new Set(st.roleMembers.filter((m) => admin.has(m.roleId)).map((m) => m.userId)).size;
        },
      },
      roles: {
        insert: async (role: { projectId: number; name: string; access: AccessLevel }) => {
          const created = { id: id(), ...role, version: 1 };
          s().roles.push(created);
          return created;
        },
        addMember: async (roleId, userId) => {
          const st = s();
          const joinedRole = !st.roleMembers.some((m) => m.roleId === roleId && m.userId === userId);
          if (joinedRole) st.roleMembers.push({ roleId, userId });
          const role = st.roles.find((r) => r.id === roleId);
          const joinedProject =
            role !== undefined &&
            !st.projectMembers.some((m) => m.projectId === role.projectId && m.userId === userId);
          if (role && joinedProject) st.projectMembers.push({ projectId: role.projectId, userId });
          return { joinedRole, joinedProject };
        },
        findInProject: async (projectId, roleId) =>
          s().roles.find((r) => r.id === roleId && r.projectId === projectId),
        findWithMembers: async (projectId, roleId) => {
          const role = s().roles.find((r) => r.id === roleId && r.projectId === projectId);
          return role && { ...role, members: roleMembers(role.id) };
        },
        update: async (roleId, changes) => {
          const role = s().roles.find((r) => r.id === roleId);
          if (!role) return;
          const changed =
            (changes.name !== undefined && changes.name !== role.name) ||
            (changes.access !== undefined && changes.access !== role.access);
          if (changes.name !== undefined) role.name = changes.name;
          if (changes.access !== undefined) role.access = changes.access;
          if (changed) role.version++;
        },
        delete: async (roleId) => {
          const st = s();
          const pending = st.invites.filter((i) => i.roleId === roleId && isPending(i, this.now)).sort(byId);
          st.roles = st.roles.filter((r) => r.id !== roleId);
          st.roleMembers = st.roleMembers.filter((m) => m.roleId !== roleId);
          st.invites = st.invites.filter((i) => i.roleId !== roleId);
          return pending;
        },
        listMembers: async (roleId) => roleMembers(roleId),
        findByName: async (projectId, name) =>
          s()
            .roles.filter((r) => r.projectId === projectId && r.name.toLowerCase() === name.toLowerCase())
            .sort(byId)[0],
        removeMember: async (roleId, userId) => {
          const st = s();
          const before = st.roleMembers.length;
          st.roleMembers = st.roleMembers.filter((m) => !(m.roleId === roleId && m.userId === userId));
          return st.roleMembers.length < before;
        },
        removeAllMembers: async (roleId) => {
          const st = s();
          const removed = new Set(st.roleMembers.filter((m) => m.roleId === roleId).map((m) => m.userId));
          st.roleMembers = st.roleMembers.filter((m) => m.roleId !== roleId);
          return st.users
            .filter((u) => removed.has(u.id))
            .sort(byId)
            .map(strip);
        },
        listWithMembers: async (projectId): Promise<RoleWithMembers[]> => {
          const st = s();
          return st.roles
            .filter((r) => r.projectId === projectId)
            .sort(byId)
            .map((r) => {
              const ids = new Set(st.roleMembers.filter((m) => m.roleId === r.id).map((m) => m.userId));
              return {
                ...r,
                members: st.users
                  .filter((u) => ids.has(u.id))
                  .sort(byId)
                  .map(strip),
              };
            });
        },
      },
      invites: {
        lockAddress: async () => undefined,
        hasPending: async (projectId, email) =>
          s().invites.some(
            (i) =>
              i.projectId === projectId &&
              i.email.toLowerCase() === email.toLowerCase() &&
              i.expiresAt > this.now,
          ),
        insert: async (invite) => {
          const { ttlDays, ...fields } = invite;
          const created = {
            id: id(),
            ...fields,
            createdAt: this.now,
            expiresAt: new Date(this.now.getTime() + ttlDays * DAY_MS),
          };
          s().invites.push(created);
          return created;
        },
        listPending: async (projectId) =>
          s()
            .invites.filter((i) => i.projectId === projectId && isPending(i, this.now))
            .sort(byId),
        findPending: async (projectId, inviteId) =>
          s().invites.find((i) => i.id === inviteId && i.projectId === projectId && isPending(i, this.now)),
        deletePending: async (projectId, inviteId) => {
          const st = s();
          const invite = st.invites.find(
            (i) => i.id === inviteId && i.projectId === projectId && isPending(i, this.now),
          );
          st.invites = st.invites.filter((i) => i !== invite);
          return invite;
        },
        findPendingByToken: async (token) =>
          s().invites.find((i) => i.token === token && isPending(i, this.now)),
        takeByToken: async (token) => {
          const st = s();
          const invite = st.invites.find((i) => i.token === token && isPending(i, this.now));
          st.invites = st.invites.filter((i) => i !== invite);
          return invite;
        },
      },
      outbox: {
        enqueue: async (message) => {
          s().outbox.push(message);
        },
      },
    };
  }
}

/**
 * Account defaults with no collaborator limit (docs/compat.md §5.7's default), for tests not about limits.
 */
export const NO_LIMITS: AccountDefaults = { collaboratorLimit: undefined, storageLimitBytes: 1024 ** 3 };
