import { unscopedKeyRecord } from '../../../src/authz/api-keys';
import { createHash } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { loadMembershipProto, type membership } from '@flowboard/proto';
import { DomainError, requireUser, unary, type Logger } from '@flowboard/service-kit';
import type { GrpcServiceRegistration } from '@flowboard/service-kit';
import { Calls } from './calls';

type User = membership.User__Output;
type Access = membership.Access__Output;

interface FakeProject {
  project: membership.Project__Output;
  roles: membership.Role__Output[];
  access: Map<number, Access>; // userId → access (owner: ACCESS_ADMIN)
}

const notFaked = (): Promise<never> =>
  Promise.reject(new DomainError('Internal', 'not implemented by the fake membership service'));

/** An in-memory membership service with canned behaviour and call counters. */
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class FakeMembership {
  readonly calls = new Calls();
  readonly users = new Map<number, User>();
  readonly keys = new Map<string, number>();
  /** The key records AuthenticateApiKey answers, by key; a key not here is one made without a scope. */
  readonly keyRecords = new Map<string, membership.ApiKey__Output>();
  /** false: answers as a membership older than scoped keys does, the user alone. */
  answersKeyRecords = true;
  /** API key id → the key, for DeleteApiKey. */
  readonly keyIds = new Map<number, string>();
  readonly projects = new Map<number, FakeProject>();
  /** Every key use the gateways have sent (RecordApiKeyUse), in order. */
  readonly keyUses: membership.ApiKeyUse__Output[] = [];
  /** The storage limit GetProjectAccount reports for every account without its own. */
  storageLimitBytes = 1024 * 1024 * 1024;
  /** Limits set by UpdateAccount, per user id. */
  readonly accountLimits = new Map<number, { collaborator_limit?: number; storage_limit_bytes?: number }>();
  private nextId: number;

  constructor(idBase: number) {
    this.nextId = idBase;
  }

  addUser(name: string): { user: User; key: string; keyId: number } {
    const id = ++this.nextId;
    const user: User = {
      id,
      name,
      user_name: name.toLowerCase().replace(/\W/g, ''),
      email: `${id}@example.test`,
      bio: '',
      create_time: '2011-02-17T18:47:16',
    };
    const key = randomBytes(16).toString('hex');
    this.users.set(id, user);
    this.keys.set(key, id);
    const keyId = ++this.nextId;
    this.keyIds.set(keyId, key);
    return { user, key, keyId };
  }

  /** Another key of `user`, with the scope given (membership's record of it, as AuthenticateApiKey answers it). */
  addKey(user: User, record: Partial<membership.ApiKey__Output>): { key: string; keyId: number } {
    const key = randomBytes(16).toString('hex');
    const keyId = ++this.nextId;
    this.keys.set(key, user.id);
    this.keyIds.set(keyId, key);
    this.keyRecords.set(key, { ...keyRecord(keyId, key), ...record });
    return { key, keyId };
  }

  addProject(owner: User, name: string): FakeProject {
    const id = ++this.nextId;
    const fake: FakeProject = {
      project: {
        id,
        name,
        description: 'I can see myself marinating a chicken in that.',
        details: 'Markdown *details*',
        create_time: '2011-02-17T18:47:16',
        owner,
        version: 1,
      },
      roles: [
        { id: ++this.nextId, name: 'Administrators', access: 'ACCESS_ADMIN', members: [owner], version: 1 },
        { id: ++this.nextId, name: 'Members', access: 'ACCESS_READWRITE', members: [], version: 1 },
      ],
      access: new Map([[owner.id, 'ACCESS_ADMIN']]),
    };
    this.projects.set(id, fake);
    return fake;
  }

  grant(project: FakeProject, user: User, access: Access): void {
    project.access.set(user.id, access);
  }

  registration(logger: Logger): GrpcServiceRegistration {
    const { MembershipService } = loadMembershipProto().flowboard.membership.v1;
    const h = <Req, Res>(name: string, fn: (req: Req, userId: () => number) => Promise<Res>) =>
      unary<Req, Res>(logger, async (req, ctx) => {
        this.calls.record(name, ctx);
        return fn(req, () => requireUser(ctx));
      });
    const implementation: membership.MembershipServiceHandlers = {
      SignUp: h('SignUp', async (req: membership.SignUpRequest__Output) => {
        if (!req.user_name || !req.email)
          throw new DomainError('InvalidArgument', 'userName and email are required');
        const { user, key } = this.addUser(req.name || req.user_name);
        Object.assign(user, { user_name: req.user_name, email: req.email, name: req.name || req.user_name });
        return { user, api_key: key };
      }),
      AuthenticateApiKey: h(
        'AuthenticateApiKey',
        async (req: membership.AuthenticateApiKeyRequest__Output) => {
          const id = this.keys.get(req.api_key);
          if (id === undefined) throw new DomainError('Unauthenticated', 'unknown key');
          const record = this.keyRecords.get(req.api_key);
          if (record && !req.enforces_scopes) throw new DomainError('Unauthenticated', 'scoped key');
          if (!this.answersKeyRecords) return { user: this.users.get(id) };
          // A key from addUser is one made without a scope: read-write on everything, never expiring.
          return {
            user: this.users.get(id),
            api_key: record ?? keyRecord(keyIdOf(this.keyIds, req.api_key), req.api_key),
          };
        },
      ),
      GetCurrentUser: h('GetCurrentUser', async (_req, userId) => ({ user: this.users.get(userId()) })),
      BatchGetUsers: h('BatchGetUsers', async (req: membership.BatchGetUsersRequest__Output) => ({
        users: req.ids.map((id) => this.users.get(id)).filter((u): u is User => Boolean(u)),
      })),
      CreateProject: h('CreateProject', async (req: membership.CreateProjectRequest__Output, userId) => {
        const owner = this.users.get(userId()) as User;
        const fake = this.addProject(owner, req.name);
        Object.assign(fake.project, { description: req.description, details: req.details });
        return { project: fake.project };
      }),
      GetProject: h('GetProject', async (req: membership.GetProjectRequest__Output, userId) => {
        const fake = this.visible(req.project_id, userId());
        return {
          project: fake.project,
          roles: req.include_roles ? fake.roles : [],
          members: req.include_members
            ? [...fake.access.keys()].map((id) => this.users.get(id)).filter((u): u is User => Boolean(u))
            : [],
        };
      }),
      GetProjectAccess: h(
        'GetProjectAccess',
        async (req: membership.GetProjectAccessRequest__Output, userId) => {
          const fake = this.visible(req.project_id, userId());
          const isOwner = fake.project.owner?.id === userId();
          return {
            access: fake.access.get(userId()),
            is_owner: isOwner,
            project_id: fake.project.id,
            project_name: fake.project.name,
          };
        },
      ),
      ListRoles: h('ListRoles', async (req: membership.ListRolesRequest__Output, userId) => ({
        roles: this.visible(req.project_id, userId()).roles,
      })),
      GetRole: h('GetRole', async (req: membership.GetRoleRequest__Output, userId) => {
        const role = this.visible(req.project_id, userId()).roles.find((r) => r.id === req.role_id);
        if (!role) throw new DomainError('NotFound', 'Role not found');
        return { role };
      }),
      // Role and member writes are exercised end to end against the real service (test/e2e); not faked here.
      CreateRole: h('CreateRole', notFaked),
      UpdateRole: h('UpdateRole', notFaked),
      DeleteRole: h('DeleteRole', notFaked),
      ListRoleMembers: h('ListRoleMembers', notFaked),
      AddRoleMember: h('AddRoleMember', notFaked),
      SetRoleMembers: h('SetRoleMembers', notFaked),
      RemoveRoleMember: h('RemoveRoleMember', notFaked),
      ListProjectMembers: h('ListProjectMembers', notFaked),
      GetProjectMember: h('GetProjectMember', notFaked),
      AddProjectMember: h('AddProjectMember', notFaked),
      RemoveProjectMember: h(
        'RemoveProjectMember',
        async (req: membership.RemoveProjectMemberRequest__Output, userId) => {
          const fake = this.visible(req.project_id, userId());
          const member = Number(req.user?.id);
          if (member === fake.project.owner?.id || !fake.access.delete(member))
            throw new DomainError('NotFound', 'No such member.');
          return {};
        },
      ),
      // Invites after creation, project list/update/delete, listing and creating API keys: e2e against the real
      // service.
      ListInvites: h('ListInvites', notFaked),
      GetInvite: h('GetInvite', notFaked),
      DeleteInvite: h('DeleteInvite', notFaked),
      AcceptInvite: h('AcceptInvite', notFaked),
      ListProjects: h('ListProjects', notFaked),
      ListReadableProjects: h('ListReadableProjects', notFaked),
      UpdateProject: h('UpdateProject', notFaked),
      DeleteProject: h('DeleteProject', async (req: membership.DeleteProjectRequest__Output, userId) => {
        const fake = this.visible(req.project_id, userId());
        if (fake.project.owner?.id !== userId()) throw new DomainError('PermissionDenied', 'Owner only.');
        this.projects.delete(req.project_id);
        return {};
      }),
      ListApiKeys: h('ListApiKeys', notFaked),
      CreateApiKey: h('CreateApiKey', notFaked),
      RecordApiKeyUse: h('RecordApiKeyUse', async (req: membership.RecordApiKeyUseRequest__Output) => {
        this.keyUses.push(...req.uses);
        return {};
      }),
      DeleteApiKey: h('DeleteApiKey', async (req: membership.DeleteApiKeyRequest__Output, userId) => {
        const key = this.keyIds.get(Number(req.api_key_id));
        if (key === undefined || this.keys.get(key) !== userId())
          throw new DomainError('NotFound', 'No such key.');
        this.keys.delete(key);
        this.keyIds.delete(Number(req.api_key_id));
        return { key_hash: sha256(key) };
      }),
      UpdateCurrentUser: h(
        'UpdateCurrentUser',
        async (req: membership.UpdateCurrentUserRequest__Output, userId) => {
          const user = this.users.get(userId()) as User;
          if (req.name !== undefined) user.name = req.name;
          const hashes = [...this.keys].filter(([, id]) => id === user.id).map(([key]) => sha256(key));
          return { user, api_key_hashes: hashes };
        },
      ),
      // Accounts: limits kept here; counting collaborators is membership's (its own tests, and test/e2e).
      GetAccount: h('GetAccount', async (_req, userId) => ({ account: this.account(userId()) })),
      UpdateAccount: h('UpdateAccount', async (req: membership.UpdateAccountRequest__Output) => {
        if (!this.users.has(req.user_id)) throw new DomainError('NotFound', 'No such user.');
        const limits = this.accountLimits.get(req.user_id) ?? {};
        if (req.reset_collaborator_limit) delete limits.collaborator_limit;
        else if (req.collaborator_limit !== undefined) limits.collaborator_limit = req.collaborator_limit;
        if (req.reset_storage_limit) delete limits.storage_limit_bytes;
        else if (req.storage_limit_bytes !== undefined) limits.storage_limit_bytes = req.storage_limit_bytes;
        this.accountLimits.set(req.user_id, limits);
        return { account: this.account(req.user_id) };
      }),
      // The operator's switches: e2e against the real service (test/e2e/test/admin.e2e.test.ts).
      SetUserEnabled: h('SetUserEnabled', notFaked),
      SetApiKeyEnabled: h('SetApiKeyEnabled', notFaked),
      // Service to service: the names of a change's payload (webhooks, and the gateway's change stream).
      ResolveNames: h('ResolveNames', async (req: membership.ResolveNamesRequest__Output) => ({
        project_name: this.projects.get(req.project_id)?.project.name ?? '',
        users: req.user_ids.flatMap((id) => this.users.get(id) ?? []),
      })),
      GetProjectAccount: h('GetProjectAccount', async (req: membership.GetProjectAccountRequest__Output) => {
        const fake = this.projects.get(req.project_id);
        if (!fake?.project.owner) throw new DomainError('NotFound', 'Project not found.');
        return { account_id: fake.project.owner.id, storage_limit_bytes: this.storageLimitBytes };
      }),
      CreateInvite: h('CreateInvite', async (req: membership.CreateInviteRequest__Output, userId) => {
        const fake = this.visible(req.project_id, userId());
        const role = fake.roles.find((r) => r.id === req.role_id);
        if (!role)
          throw new DomainError('InvalidArgument', 'Unknown role.', { problem: 'invalid-reference' });
        return {
          invite: {
            id: ++this.nextId,
            create_time: '2011-02-18T14:24:42',
            email: req.email,
            token: randomBytes(16).toString('hex'),
            sender: this.users.get(userId()),
            role: { id: role.id, name: role.name },
          },
        };
      }),
    };
    return {
      name: 'flowboard.membership.v1.MembershipService',
      definition: MembershipService.service,
      implementation,
    };
  }

  private account(userId: number): membership.Account__Output {
    const limits = this.accountLimits.get(userId) ?? {};
    return {
      id: userId,
      ...(limits.collaborator_limit === undefined ? {} : { collaborator_limit: limits.collaborator_limit }),
      collaborators_used: 0,
      storage_limit_bytes: limits.storage_limit_bytes ?? this.storageLimitBytes,
    };
  }

  private visible(projectId: number, userId: number): FakeProject {
    const fake = this.projects.get(projectId);
    if (!fake || !fake.access.has(userId)) throw new DomainError('NotFound', 'Project not found.');
    return fake;
  }
}

/** A key as membership lists one made without a scope. */
const keyRecord = (id: number, key: string): membership.ApiKey__Output =>
  unscopedKeyRecord({ id, create_time: '2026-01-01T00:00:00', hint: key.slice(-4) });

const keyIdOf = (keyIds: ReadonlyMap<number, string>, key: string): number =>
  [...keyIds].find(([, k]) => k === key)?.[0] ?? 0;
