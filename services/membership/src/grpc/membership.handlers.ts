import type { membership } from '@flowboard/proto';
import { requireUser, unary, type CallContext, type Logger } from '@flowboard/service-kit';
import type { createAuthenticateApiKey } from '../application/authenticate-api-key';
import type { createBatchGetUsers } from '../application/batch-get-users';
import type { createCreateInvite } from '../application/create-invite';
import type { createCreateProject } from '../application/create-project';
import type { createGetCurrentUser } from '../application/get-current-user';
import type { createGetProject } from '../application/get-project';
import type { createGetProjectAccess } from '../application/get-project-access';
import type { createSignUp } from '../application/sign-up';
import { translateInfrastructureError } from '../db/errors';
import { toAccessMessage, toInviteMessage, toProjectMessage, toRoleMessage, toUserMessage } from './mappers';

export interface UseCases {
  signUp: ReturnType<typeof createSignUp>;
  authenticateApiKey: ReturnType<typeof createAuthenticateApiKey>;
  getCurrentUser: ReturnType<typeof createGetCurrentUser>;
  batchGetUsers: ReturnType<typeof createBatchGetUsers>;
  createProject: ReturnType<typeof createCreateProject>;
  getProject: ReturnType<typeof createGetProject>;
  getProjectAccess: ReturnType<typeof createGetProjectAccess>;
  createInvite: ReturnType<typeof createCreateInvite>;
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
  };
}
