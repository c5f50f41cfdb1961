import type { ApiKeyScope } from '../domain/api-key';
import type { AccountOverrides } from '../domain/account';
import type { AccessLevel, MembershipFacts } from '../domain/access';
import type { NewProject } from '../domain/project';
import type { NewUser } from '../domain/user';
import type { Outbox, OutboxMessage } from '@flowboard/events';

/** The interfaces the use cases need; `src/db/` implements them with PostgreSQL, tests with fakes. */

export interface User {
  id: number;
  name: string;
  userName: string;
  email: string;
  bio: string;
  createdAt: Date;
}

export interface Project {
  id: number;
  name: string;
  description: string;
  details: string;
  ownerId: number;
  createdAt: Date;
  /** Kept by the database (migration 0004): 1 when created, +1 with each change of a shown field. */
  version: number;
}

export interface Role {
  id: number;
  projectId: number;
  name: string;
  access: AccessLevel;
  /** Kept by the database (migration 0004): 1 when created, +1 with each change of name or access. */
  version: number;
}

export interface RoleWithMembers extends Role {
  /** Ordered by user id. */
  members: User[];
}

export interface Invite {
  id: number;
  projectId: number;
  roleId: number;
  email: string;
  token: string;
  senderId: number;
  createdAt: Date;
  expiresAt: Date;
}

export interface ApiKey extends ApiKeyScope {
  id: number;
  userId: number;
  hint: string;
  enabled: boolean;
  createdAt: Date;
  lastUsedAt?: Date;
}

/** A partial change to a user (PUT /me); undefined = unchanged. */
export interface UserChanges {
  name?: string;
  userName?: string;
  email?: string;
  bio?: string;
}

/** A partial change to a project (PUT P); undefined = unchanged. */
export interface ProjectChanges {
  name?: string;
  description?: string;
  details?: string;
  ownerId?: number;
}

export interface UserRepository {
  /** Throws DomainError AlreadyExists naming `userName` or `email` when either is taken (ignoring case). */
  insert(user: NewUser): Promise<User>;
  findById(id: number): Promise<User | undefined>;
  /** Unknown ids are left out; ordered by id. */
  findByIds(ids: number[]): Promise<User[]>;
  /** By login name, ignoring case (users_user_name_lower_key). */
  findByUserName(userName: string): Promise<User | undefined>;
  /** The enabled, unexpired key with this hash and its user, if the user is enabled too. */
  findByApiKeyHash(keyHash: string): Promise<{ user: User; apiKey: ApiKey } | undefined>;
  /** Throws DomainError AlreadyExists naming `userName` or `email` on a clash; undefined when unknown. */
  update(id: number, changes: UserChanges): Promise<User | undefined>;
  /** Enables or disables the user (operator); the user and the new state, or undefined when unknown. */
  setEnabled(id: number, enabled: boolean): Promise<{ user: User; enabled: boolean } | undefined>;
}

export interface ApiKeyRepository {
  /** A key with no scope given is read-write on everything, never expiring (sign-up's first key). */
  insert(key: { userId: number; keyHash: string; hint: string; scope?: ApiKeyScope }): Promise<ApiKey>;
  /** Raises each key's last use to the given time (never lowers it); unknown ids are skipped. */
  recordUses(uses: ReadonlyArray<{ id: number; usedAt: Date }>): Promise<void>;
  /** The user's keys, id order (api_keys_user_idx). */
  listByUser(userId: number): Promise<ApiKey[]>;
  /** sha256 of each of the user's keys. */
  listHashes(userId: number): Promise<string[]>;
  /** Deletes the key when it belongs to the user; answers its hash, or undefined when there was none. */
  deleteForUser(id: number, userId: number): Promise<string | undefined>;
  /**
   * Enables or disables the key when it belongs to the user (operator); answers the key and its hash, or
   * undefined when there was none.
   */
  setEnabledForUser(
    id: number,
    userId: number,
    enabled: boolean,
  ): Promise<{ apiKey: ApiKey; keyHash: string } | undefined>;
}

export interface ProjectRepository {
  insert(project: NewProject & { ownerId: number }): Promise<Project>;
  /** Makes the user a direct member; true when they were not one already. */
  addMember(projectId: number, userId: number): Promise<boolean>;
  /** The project and what makes `userId` a member of it, in one query; undefined when the project is unknown. */
  findWithMembership(
    projectId: number,
    userId: number,
  ): Promise<{ project: Project; facts: MembershipFacts } | undefined>;
  findById(projectId: number): Promise<Project | undefined>;
  /** Owner, direct members and role members, distinct, ordered by id. */
  listMembers(projectId: number): Promise<User[]>;
  /** Whether a member of the project (as in listMembers) has this e-mail address, ignoring case. */
  hasMemberWithEmail(projectId: number, email: string): Promise<boolean>;
  /**
   * Serialises changes to the project's roles and members until the transaction ends (a row lock on the
   * project), so checks like the last-admin rule cannot be raced.
   */
  lockMembership(projectId: number): Promise<void>;
  /** Owner, direct member or role member (as in listMembers). */
  isMember(projectId: number, userId: number): Promise<boolean>;
  /** Leaves the project and every role of it; answers the ids of the roles left. */
  removeMember(projectId: number, userId: number): Promise<number[]>;
  /**
   * Of `userIds`, removes from the project those now in none of its roles, never the owner; answers the ids of
   * those removed (they are no longer members: roles' members are direct members too).
   */
  removeRolelessMembers(projectId: number, userIds: number[]): Promise<number[]>;
  /** Distinct users in the project's roles with admin access. */
  countAdminRoleMembers(projectId: number): Promise<number>;
  /** Projects the user owns or is a member of (directly or through a role), id order. */
  listForUser(userId: number): Promise<Project[]>;
  /** Projects where the user's effective access is read or better (owner, or a role above none), id order. */
  listReadableForUser(userId: number): Promise<Array<{ id: number; name: string }>>;
  update(projectId: number, changes: ProjectChanges): Promise<Project | undefined>;
  /** Deletes the project with its members, roles and invites (foreign-key cascades). */
  delete(projectId: number): Promise<void>;
}

export interface RoleRepository {
  insert(role: { projectId: number; name: string; access: AccessLevel }): Promise<Role>;
  /**
   * Puts the user in the role, and so in its project; answers whether they joined the role (false: in it
   * already) and the project (false: a direct member already, as every role member and the owner are).
   */
  addMember(roleId: number, userId: number): Promise<{ joinedRole: boolean; joinedProject: boolean }>;
  /** The role when it belongs to the project. */
  findInProject(projectId: number, roleId: number): Promise<Role | undefined>;
  /** Ordered by role id. */
  listWithMembers(projectId: number): Promise<RoleWithMembers[]>;
  /** The role with its members when it belongs to the project. */
  findWithMembers(projectId: number, roleId: number): Promise<RoleWithMembers | undefined>;
  update(roleId: number, changes: { name?: string; access?: AccessLevel }): Promise<void>;
  /**
   * Members leave the role (whether they stay project members is the caller's to settle); its invites go too.
   * Answers the pending ones among them, as they were.
   */
  delete(roleId: number): Promise<Invite[]>;
  /** Ordered by user id. */
  listMembers(roleId: number): Promise<User[]>;
  /** False when the user was not in the role. */
  removeMember(roleId: number, userId: number): Promise<boolean>;
  /** Answers the users who were in the role, ordered by id. */
  removeAllMembers(roleId: number): Promise<User[]>;
  /** The project's first role (by id) with this name, ignoring case. */
  findByName(projectId: number, name: string): Promise<Role | undefined>;
}

export interface InviteRepository {
  /** Serialises invites for one address in one project until the transaction ends (no duplicate race). */
  lockAddress(projectId: number, email: string): Promise<void>;
  /** A pending (not expired) invite exists for the address in the project, ignoring case. */
  hasPending(projectId: number, email: string): Promise<boolean>;
  /** Expires `ttlDays` after creation (database time). */
  insert(invite: {
    projectId: number;
    roleId: number;
    email: string;
    token: string;
    senderId: number;
    ttlDays: number;
  }): Promise<Invite>;
  /** Pending (not expired) invites of a project, id order. */
  listPending(projectId: number): Promise<Invite[]>;
  /** A pending invite of the project. */
  findPending(projectId: number, inviteId: number): Promise<Invite | undefined>;
  /** The deleted invite as it was; undefined when there was no pending invite with this id in the project. */
  deletePending(projectId: number, inviteId: number): Promise<Invite | undefined>;
  /** The pending invite with this token (invites_token_key), without locking it. */
  findPendingByToken(token: string): Promise<Invite | undefined>;
  /**
   * Deletes the pending invite with this token and answers it; undefined when unknown or expired. Of two
   * concurrent takes of one token, exactly one gets the invite (the row lock of the DELETE).
   */
  takeByToken(token: string): Promise<Invite | undefined>;
}

export interface AccountRepository {
  /** Creates the user's account when missing (no-op otherwise; unknown user: nothing happens). */
  ensure(userId: number): Promise<void>;
  /**
   * Creates the account when missing and locks its row until the transaction ends (FOR UPDATE), so the
   * collaborator checks of concurrent changes to any of its projects run one after another. Undefined when
   * the user does not exist.
   */
  lock(userId: number): Promise<AccountOverrides | undefined>;
  /** The stored overrides; a user without an account row (not yet created) has none. Undefined: no user. */
  find(userId: number): Promise<AccountOverrides | undefined>;
  /**
   * Distinct people, by e-mail address ignoring case, other than the owner: members of the projects the user
   * owns, and addresses of their pending (unexpired) invites.
   */
  countCollaborators(ownerId: number): Promise<number>;
  /** Sets (number) or clears (null) overrides; undefined = unchanged. Undefined result: no such user. */
  update(
    userId: number,
    changes: { collaboratorLimit?: number | null; storageLimitBytes?: number | null },
  ): Promise<AccountOverrides | undefined>;
}

// The outbox port is shared by every publishing service (@flowboard/events).
export type { Outbox, OutboxMessage };

export interface Repositories {
  users: UserRepository;
  apiKeys: ApiKeyRepository;
  projects: ProjectRepository;
  roles: RoleRepository;
  invites: InviteRepository;
  accounts: AccountRepository;
  outbox: Outbox;
}

export interface Database {
  /** Repositories outside a transaction, for single reads. */
  readonly repos: Repositories;
  /** Runs `fn` in one transaction: everything commits together or nothing does. */
  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
}

/** Tells the outbox relay that new events were committed, so it publishes now instead of at its next tick. */
export type OutboxSignal = () => void;
