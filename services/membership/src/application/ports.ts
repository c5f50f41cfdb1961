import type { AccessLevel, MembershipFacts } from '../domain/access';
import type { NewProject } from '../domain/project';
import type { NewUser } from '../domain/user';

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
}

export interface Role {
  id: number;
  projectId: number;
  name: string;
  access: AccessLevel;
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

export interface UserRepository {
  /** Throws DomainError AlreadyExists naming `userName` or `email` when either is taken (ignoring case). */
  insert(user: NewUser): Promise<User>;
  findById(id: number): Promise<User | undefined>;
  /** Unknown ids are left out; ordered by id. */
  findByIds(ids: number[]): Promise<User[]>;
  /** The user owning an enabled key with this hash, if the user is enabled too. */
  findByApiKeyHash(keyHash: string): Promise<User | undefined>;
}

export interface ApiKeyRepository {
  insert(key: { userId: number; keyHash: string; hint: string }): Promise<{ id: number }>;
}

export interface ProjectRepository {
  insert(project: NewProject & { ownerId: number }): Promise<Project>;
  addMember(projectId: number, userId: number): Promise<void>;
  /** The project and what makes `userId` a member of it, in one query; undefined when the project is unknown. */
  findWithMembership(
    projectId: number,
    userId: number,
  ): Promise<{ project: Project; facts: MembershipFacts } | undefined>;
  /** Owner, direct members and role members, distinct, ordered by id. */
  listMembers(projectId: number): Promise<User[]>;
  /** Whether a member of the project (as in listMembers) has this e-mail address, ignoring case. */
  hasMemberWithEmail(projectId: number, email: string): Promise<boolean>;
}

export interface RoleRepository {
  insert(role: { projectId: number; name: string; access: AccessLevel }): Promise<Role>;
  addMember(roleId: number, userId: number): Promise<void>;
  /** The role when it belongs to the project. */
  findInProject(projectId: number, roleId: number): Promise<Role | undefined>;
  /** Ordered by role id. */
  listWithMembers(projectId: number): Promise<RoleWithMembers[]>;
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
}

export interface OutboxMessage {
  /** The event id; consumers deduplicate by it. */
  id: string;
  topic: string;
  key: string;
  payload: unknown;
  headers?: Record<string, string>;
}

/** Events written here are published if and only if the surrounding transaction commits. */
export interface Outbox {
  enqueue(message: OutboxMessage): Promise<void>;
}

export interface Repositories {
  users: UserRepository;
  apiKeys: ApiKeyRepository;
  projects: ProjectRepository;
  roles: RoleRepository;
  invites: InviteRepository;
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
