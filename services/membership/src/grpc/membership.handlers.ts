import type { membership } from '@flowboard/proto';
import { requireUser, unary, type CallContext, type Logger } from '@flowboard/service-kit';
import type { createAccountUseCases } from '../application/accounts';
import type { createApiKeyUseCases } from '../application/api-keys';
import type { createEnablementUseCases } from '../application/enablement';
import type { createInviteUseCases } from '../application/invites';
import type { createProjectUseCases } from '../application/projects';
import type { createUpdateCurrentUser } from '../application/update-current-user';
import type { createAuthenticateApiKey } from '../application/authenticate-api-key';
import type { createBatchGetUsers } from '../application/batch-get-users';
import type { createResolveNames } from '../application/resolve-names';
import type { createCreateInvite } from '../application/create-invite';
import type { createCreateProject } from '../application/create-project';
import type { createGetCurrentUser } from '../application/get-current-user';
import type { createGetProject } from '../application/get-project';
import type { createGetProjectAccess } from '../application/get-project-access';
import type { createProjectMemberUseCases } from '../application/project-members';
import type { createRoleMemberUseCases } from '../application/role-members';
import type { createRoleUseCases } from '../application/roles';
import type { createSignUp } from '../application/sign-up';
import {
  toAccountMessage,
  fromAccessMessage,
  fromUserRef,
  toAccessMessage,
  toApiKeyMessage,
  toInviteMessage,
  toProjectMessage,
  toRoleMessage,
  toUserMessage,
} from './mappers';

export interface UseCases {
  signUp: ReturnType<typeof createSignUp>;
  authenticateApiKey: ReturnType<typeof createAuthenticateApiKey>;
  getCurrentUser: ReturnType<typeof createGetCurrentUser>;
  batchGetUsers: ReturnType<typeof createBatchGetUsers>;
  resolveNames: ReturnType<typeof createResolveNames>;
  createProject: ReturnType<typeof createCreateProject>;
  getProject: ReturnType<typeof createGetProject>;
  getProjectAccess: ReturnType<typeof createGetProjectAccess>;
  createInvite: ReturnType<typeof createCreateInvite>;
  roles: ReturnType<typeof createRoleUseCases>;
  roleMembers: ReturnType<typeof createRoleMemberUseCases>;
  projectMembers: ReturnType<typeof createProjectMemberUseCases>;
  invites: ReturnType<typeof createInviteUseCases>;
  projects: ReturnType<typeof createProjectUseCases>;
  apiKeys: ReturnType<typeof createApiKeyUseCases>;
  updateCurrentUser: ReturnType<typeof createUpdateCurrentUser>;
  accounts: ReturnType<typeof createAccountUseCases>;
  enablement: ReturnType<typeof createEnablementUseCases>;
}

/** Request → use case → response. Validation and rules live in the use cases and the domain. */
export function createMembershipHandlers(
  useCases: UseCases,
  logger: Logger,
): membership.MembershipServiceHandlers {
  // unary() maps DomainErrors to gRPC statuses, and an unreachable database to UNAVAILABLE (503).
  const handle = <Req, Res>(fn: (request: Req, ctx: CallContext) => Promise<Res>) =>
    unary<Req, Res>(logger, fn);

  return {
    SignUp: handle(async (req: membership.SignUpRequest__Output) => {
      const { user, apiKey } = await useCases.signUp({
        name: req.name,
        userName: req.user_name,
        email: req.email,
      });
      return { user: toUserMessage(user), api_key: apiKey };
    }),

    AuthenticateApiKey: handle(async (req: membership.AuthenticateApiKeyRequest__Output) => {
      const { user, apiKey } = await useCases.authenticateApiKey(req.api_key, req.enforces_scopes);
      return { user: toUserMessage(user), api_key: toApiKeyMessage(apiKey) };
    }),

    GetCurrentUser: handle(async (_req: membership.GetCurrentUserRequest__Output, ctx) => ({
      user: toUserMessage(await useCases.getCurrentUser(requireUser(ctx))),
    })),

    BatchGetUsers: handle(async (req: membership.BatchGetUsersRequest__Output) => ({
      users: (await useCases.batchGetUsers(req.ids)).map(toUserMessage),
    })),

    ResolveNames: handle(async (req: membership.ResolveNamesRequest__Output) => {
      const { projectName, users } = await useCases.resolveNames(req.project_id, req.user_ids);
      return { project_name: projectName, users: users.map(toUserMessage) };
    }),

    CreateProject: handle(async (req: membership.CreateProjectRequest__Output, ctx) => {
      const { project, owner } = await useCases.createProject(requireUser(ctx), {
        name: req.name,
        description: req.description,
        details: req.details,
      });
      return { project: toProjectMessage(project, owner) };
    }),

    GetProject: handle(async (req: membership.GetProjectRequest__Output, ctx) => {
      const view = await useCases.getProject(requireUser(ctx), {
        projectId: req.project_id,
        includeRoles: req.include_roles,
        includeMembers: req.include_members,
        includeInvites: req.include_invites,
      });
      return {
        project: toProjectMessage(view.project, view.owner),
        roles: view.roles.map(toRoleMessage),
        members: view.members.map(toUserMessage),
        invites: view.invites.map((v) => toInviteMessage(v.invite, v.sender, v.role)),
      };
    }),

    GetProjectAccess: handle(async (req: membership.GetProjectAccessRequest__Output, ctx) => {
      const result = await useCases.getProjectAccess(requireUser(ctx), req.project_id);
      return {
        access: toAccessMessage(result.access),
        is_owner: result.isOwner,
        project_id: result.project.id,
        project_name: result.project.name,
      };
    }),

    CreateInvite: handle(async (req: membership.CreateInviteRequest__Output, ctx) => {
      const { invite, sender, role } = await useCases.createInvite(requireUser(ctx), {
        projectId: req.project_id,
        email: req.email,
        roleId: req.role_id,
        requestId: ctx.requestId,
      });
      return { invite: toInviteMessage(invite, sender, role) };
    }),

    ListRoles: handle(async (req: membership.ListRolesRequest__Output, ctx) => ({
      roles: (
        await useCases.roles.list(requireUser(ctx), { projectId: req.project_id, where: req.where })
      ).map(toRoleMessage),
    })),

    CreateRole: handle(async (req: membership.CreateRoleRequest__Output, ctx) => ({
      role: toRoleMessage(
        await useCases.roles.create(requireUser(ctx), {
          projectId: req.project_id,
          name: req.name,
          access: fromAccessMessage(req.access),
        }),
      ),
    })),

    GetRole: handle(async (req: membership.GetRoleRequest__Output, ctx) => ({
      role: toRoleMessage(
        await useCases.roles.get(requireUser(ctx), { projectId: req.project_id, roleId: req.role_id }),
      ),
    })),

    UpdateRole: handle(async (req: membership.UpdateRoleRequest__Output, ctx) => ({
      role: toRoleMessage(
        await useCases.roles.update(requireUser(ctx), {
          projectId: req.project_id,
          roleId: req.role_id,
          name: req.name,
          access: fromAccessMessage(req.access),
          expectedVersion: req.expected_version,
        }),
      ),
    })),

    DeleteRole: handle(async (req: membership.DeleteRoleRequest__Output, ctx) => {
      await useCases.roles.delete(requireUser(ctx), {
        projectId: req.project_id,
        roleId: req.role_id,
        expectedVersion: req.expected_version,
      });
      return {};
    }),

    ListRoleMembers: handle(async (req: membership.ListRoleMembersRequest__Output, ctx) => ({
      members: (
        await useCases.roleMembers.list(requireUser(ctx), {
          projectId: req.project_id,
          roleId: req.role_id,
          where: req.where,
        })
      ).map(toUserMessage),
    })),

    AddRoleMember: handle(async (req: membership.AddRoleMemberRequest__Output, ctx) => ({
      members: (
        await useCases.roleMembers.add(requireUser(ctx), {
          projectId: req.project_id,
          roleId: req.role_id,
          user: fromUserRef(req.user),
        })
      ).map(toUserMessage),
    })),

    SetRoleMembers: handle(async (req: membership.SetRoleMembersRequest__Output, ctx) => ({
      members: (
        await useCases.roleMembers.set(requireUser(ctx), {
          projectId: req.project_id,
          roleId: req.role_id,
          users: req.users.map(fromUserRef),
        })
      ).map(toUserMessage),
    })),

    RemoveRoleMember: handle(async (req: membership.RemoveRoleMemberRequest__Output, ctx) => ({
      members: (
        await useCases.roleMembers.remove(requireUser(ctx), {
          projectId: req.project_id,
          roleId: req.role_id,
          user: fromUserRef(req.user),
          where: req.where,
        })
      ).map(toUserMessage),
    })),

    ListProjectMembers: handle(async (req: membership.ListProjectMembersRequest__Output, ctx) => ({
      members: (
        await useCases.projectMembers.list(requireUser(ctx), { projectId: req.project_id, where: req.where })
      ).map(toUserMessage),
    })),

    GetProjectMember: handle(async (req: membership.GetProjectMemberRequest__Output, ctx) => ({
      user: toUserMessage(
        await useCases.projectMembers.get(requireUser(ctx), {
          projectId: req.project_id,
          user: fromUserRef(req.user),
        }),
      ),
    })),

    AddProjectMember: handle(async (req: membership.AddProjectMemberRequest__Output, ctx) => ({
      members: (
        await useCases.projectMembers.add(requireUser(ctx), {
          projectId: req.project_id,
          user: fromUserRef(req.user),
        })
      ).map(toUserMessage),
    })),

    RemoveProjectMember: handle(async (req: membership.RemoveProjectMemberRequest__Output, ctx) => {
      await useCases.projectMembers.remove(requireUser(ctx), {
        projectId: req.project_id,
        user: fromUserRef(req.user),
      });
      return {};
    }),

    ListInvites: handle(async (req: membership.ListInvitesRequest__Output, ctx) => ({
      invites: (await useCases.invites.list(requireUser(ctx), req.project_id)).map((v) =>
        toInviteMessage(v.invite, v.sender, v.role),
      ),
    })),

    GetInvite: handle(async (req: membership.GetInviteRequest__Output, ctx) => {
      const v = await useCases.invites.get(requireUser(ctx), {
        projectId: req.project_id,
        inviteId: req.invite_id,
      });
      return { invite: toInviteMessage(v.invite, v.sender, v.role) };
    }),

    DeleteInvite: handle(async (req: membership.DeleteInviteRequest__Output, ctx) => {
      await useCases.invites.delete(requireUser(ctx), { projectId: req.project_id, inviteId: req.invite_id });
      return {};
    }),

    AcceptInvite: handle(async (req: membership.AcceptInviteRequest__Output, ctx) => {
      const { project, owner } = await useCases.invites.accept(requireUser(ctx), req.token);
      return { project: toProjectMessage(project, owner) };
    }),

    ListProjects: handle(async (req: membership.ListProjectsRequest__Output, ctx) => {
      const { entries, totalItems, keyset } = await useCases.projects.list(requireUser(ctx), {
        where: req.where,
        page: req.page,
        pageSize: req.page_size,
        includeRoles: req.include_roles,
        includeMembers: req.include_members,
        includeInvites: req.include_invites,
        onlyProjectIds: req.only_project_ids.map(Number),
        keyset: req.keyset ? { afterId: req.keyset.after_id } : undefined,
      });
      return {
        projects: entries.map((e) => ({
          project: toProjectMessage(e.project, e.owner),
          roles: e.roles.map(toRoleMessage),
          members: e.members.map(toUserMessage),
          invites: e.invites.map((v) => toInviteMessage(v.invite, v.sender, v.role)),
        })),
        total_items: totalItems,
        // Answered (even for an empty page) exactly when asked: it tells the gateway this release paged by it.
        keyset,
      };
    }),

    ListReadableProjects: handle(async (_req: membership.ListReadableProjectsRequest__Output, ctx) => ({
      projects: await useCases.projects.listReadable(requireUser(ctx)),
    })),

    UpdateProject: handle(async (req: membership.UpdateProjectRequest__Output, ctx) => {
      const { project, owner } = await useCases.projects.update(requireUser(ctx), {
        projectId: req.project_id,
        name: req.name ?? undefined,
        description: req.description ?? undefined,
        details: req.details ?? undefined,
        owner: req.owner ? fromUserRef(req.owner) : undefined,
        expectedVersion: req.expected_version,
      });
      return { project: toProjectMessage(project, owner) };
    }),

    DeleteProject: handle(async (req: membership.DeleteProjectRequest__Output, ctx) => {
      await useCases.projects.delete(requireUser(ctx), {
        projectId: req.project_id,
        requestId: ctx.requestId,
        expectedVersion: req.expected_version,
      });
      return {};
    }),

    ListApiKeys: handle(async (_req: membership.ListApiKeysRequest__Output, ctx) => ({
      api_keys: (await useCases.apiKeys.list(requireUser(ctx))).map(toApiKeyMessage),
    })),

    CreateApiKey: handle(async (req: membership.CreateApiKeyRequest__Output, ctx) => {
      const { apiKey, key } = await useCases.apiKeys.create(requireUser(ctx), {
        name: req.name,
        expireTime: req.expire_time,
        readOnly: req.read_only,
        projectIds: req.project_ids.map(Number),
        groups: req.groups,
      });
      return { api_key: toApiKeyMessage(apiKey), key };
    }),

    DeleteApiKey: handle(async (req: membership.DeleteApiKeyRequest__Output, ctx) => {
      const { keyHash } = await useCases.apiKeys.delete(requireUser(ctx), req.api_key_id);
      return { key_hash: keyHash };
    }),

    RecordApiKeyUse: handle(async (req: membership.RecordApiKeyUseRequest__Output) => {
      await useCases.apiKeys.recordUses(
        req.uses.map((u) => ({ id: Number(u.api_key_id), usedAt: new Date(u.use_time) })),
      );
      return {};
    }),

    UpdateCurrentUser: handle(async (req: membership.UpdateCurrentUserRequest__Output, ctx) => {
      const { user, apiKeyHashes } = await useCases.updateCurrentUser(requireUser(ctx), {
        name: req.name ?? undefined,
        userName: req.user_name ?? undefined,
        email: req.email ?? undefined,
        bio: req.bio ?? undefined,
      });
      return { user: toUserMessage(user), api_key_hashes: apiKeyHashes };
    }),

    GetProjectAccount: handle(async (req: membership.GetProjectAccountRequest__Output) => {
      const { accountId, storageLimitBytes } = await useCases.accounts.getProjectAccount(req.project_id);
      return { account_id: accountId, storage_limit_bytes: storageLimitBytes };
    }),

    GetAccount: handle(async (_req: membership.GetAccountRequest__Output, ctx) => ({
      account: toAccountMessage(await useCases.accounts.get(requireUser(ctx))),
    })),

    UpdateAccount: handle(async (req: membership.UpdateAccountRequest__Output) => ({
      account: toAccountMessage(
        await useCases.accounts.update(req.user_id, {
          collaboratorLimit: req.reset_collaborator_limit ? null : (req.collaborator_limit ?? undefined),
          storageLimitBytes: req.reset_storage_limit ? null : (req.storage_limit_bytes ?? undefined),
        }),
      ),
    })),

    SetUserEnabled: handle(async (req: membership.SetUserEnabledRequest__Output) => {
      const { user, enabled, apiKeyHashes } = await useCases.enablement.setUser(req.user_id, req.enabled);
      return { user: toUserMessage(user), enabled, api_key_hashes: apiKeyHashes };
    }),

    SetApiKeyEnabled: handle(async (req: membership.SetApiKeyEnabledRequest__Output) => {
      const { apiKey, keyHash } = await useCases.enablement.setApiKey(
        req.user_id,
        req.api_key_id,
        req.enabled,
      );
      return { api_key: toApiKeyMessage(apiKey), key_hash: keyHash };
    }),
  };
}
