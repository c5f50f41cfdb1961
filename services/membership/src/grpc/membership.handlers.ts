import type { membership } from '@flowboard/proto';
import { requireUser, unary, type CallContext, type Logger } from '@flowboard/service-kit';
import type { createAuthenticateApiKey } from '../application/authenticate-api-key';
import type { createBatchGetUsers } from '../application/batch-get-users';
import type { createCreateInvite } from '../application/create-invite';
import type { createCreateProject } from '../application/create-project';
import type { createGetCurrentUser } from '../application/get-current-user';
import type { createGetProject } from '../application/get-project';
import type { createGetProjectAccess } from '../application/get-project-access';
import type { createProjectMemberUseCases } from '../application/project-members';
import type { createRoleMemberUseCases } from '../application/role-members';
import type { createRoleUseCases } from '../application/roles';
import type { createSignUp } from '../application/sign-up';
import { translateInfrastructureError } from '../db/errors';
import {
  fromAccessMessage,
  fromUserRef,
  toAccessMessage,
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
  createProject: ReturnType<typeof createCreateProject>;
  getProject: ReturnType<typeof createGetProject>;
  getProjectAccess: ReturnType<typeof createGetProjectAccess>;
  createInvite: ReturnType<typeof createCreateInvite>;
  roles: ReturnType<typeof createRoleUseCases>;
  roleMembers: ReturnType<typeof createRoleMemberUseCases>;
  projectMembers: ReturnType<typeof createProjectMemberUseCases>;
}

/** Request → use case → response. Validation and rules live in the use cases and the domain. */
export function createMembershipHandlers(
  useCases: UseCases,
  logger: Logger,
): membership.MembershipServiceHandlers {
  // unary() maps DomainErrors to gRPC statuses; an unreachable database is made a DomainError first (503).
  const handle = <Req, Res>(fn: (request: Req, ctx: CallContext) => Promise<Res>) =>
    unary<Req, Res>(logger, async (request, ctx) => {
      try {
        return await fn(request, ctx);
      } catch (err) {
        throw translateInfrastructureError(err);
      }
    });

  return {
    SignUp: handle(async (req: membership.SignUpRequest__Output) => {
      const { user, apiKey } = await useCases.signUp({
        name: req.name,
        userName: req.user_name,
        email: req.email,
      });
      return { user: toUserMessage(user), api_key: apiKey };
    }),

    AuthenticateApiKey: handle(async (req: membership.AuthenticateApiKeyRequest__Output) => ({
      user: toUserMessage(await useCases.authenticateApiKey(req.api_key)),
    })),

    GetCurrentUser: handle(async (_req: membership.GetCurrentUserRequest__Output, ctx) => ({
      user: toUserMessage(await useCases.getCurrentUser(requireUser(ctx))),
    })),

    BatchGetUsers: handle(async (req: membership.BatchGetUsersRequest__Output) => ({
      users: (await useCases.batchGetUsers(req.ids)).map(toUserMessage),
    })),

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
      });
      return {
        project: toProjectMessage(view.project, view.owner),
        roles: view.roles.map(toRoleMessage),
        members: view.members.map(toUserMessage),
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
        }),
      ),
    })),

    DeleteRole: handle(async (req: membership.DeleteRoleRequest__Output, ctx) => {
      await useCases.roles.delete(requireUser(ctx), { projectId: req.project_id, roleId: req.role_id });
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
  };
}
