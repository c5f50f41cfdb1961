import { loadMembershipProto, type membership } from '@flowboard/proto';
import { createGrpcClient, unaryCall, type MetricsRegistry } from '@flowboard/service-kit';

export const MEMBERSHIP_SERVICE = 'flowboard.membership.v1.MembershipService';

/**
 * Typed calls to membership, each with the configured deadline; the caller and request id travel in metadata
 * from the request context. Reads retry on UNAVAILABLE, as the proto's `idempotency_level` declares them; writes never do.
 */
export function createMembershipClient(address: string, deadlineMs: number, metrics?: MetricsRegistry) {
  const { MembershipService } = loadMembershipProto().flowboard.membership.v1;
  const client = createGrpcClient(MembershipService, address, { metrics });
  const options = { deadlineMs };
  return {
    signUp: (request: membership.SignUpRequest) => unaryCall(client, 'SignUp', request, options),
    authenticateApiKey: (apiKey: string) =>
      unaryCall(client, 'AuthenticateApiKey', { api_key: apiKey }, options),
    getCurrentUser: () => unaryCall(client, 'GetCurrentUser', {}, options),
    batchGetUsers: (ids: number[]) => unaryCall(client, 'BatchGetUsers', { ids }, options),
    createProject: (request: membership.CreateProjectRequest) =>
      unaryCall(client, 'CreateProject', request, options),
    getProject: (request: membership.GetProjectRequest) => unaryCall(client, 'GetProject', request, options),
    getProjectAccess: (projectId: number) =>
      unaryCall(client, 'GetProjectAccess', { project_id: projectId }, options),
    createInvite: (request: membership.CreateInviteRequest) =>
      unaryCall(client, 'CreateInvite', request, options),
    listRoles: (request: membership.ListRolesRequest) => unaryCall(client, 'ListRoles', request, options),
    createRole: (request: membership.CreateRoleRequest) => unaryCall(client, 'CreateRole', request, options),
    getRole: (request: membership.GetRoleRequest) => unaryCall(client, 'GetRole', request, options),
    updateRole: (request: membership.UpdateRoleRequest) => unaryCall(client, 'UpdateRole', request, options),
    deleteRole: (request: membership.DeleteRoleRequest) => unaryCall(client, 'DeleteRole', request, options),
    listRoleMembers: (request: membership.ListRoleMembersRequest) =>
      unaryCall(client, 'ListRoleMembers', request, options),
    addRoleMember: (request: membership.AddRoleMemberRequest) =>
      unaryCall(client, 'AddRoleMember', request, options),
    setRoleMembers: (request: membership.SetRoleMembersRequest) =>
      unaryCall(client, 'SetRoleMembers', request, options),
    removeRoleMember: (request: membership.RemoveRoleMemberRequest) =>
      unaryCall(client, 'RemoveRoleMember', request, options),
    listProjectMembers: (request: membership.ListProjectMembersRequest) =>
      unaryCall(client, 'ListProjectMembers', request, options),
    getProjectMember: (request: membership.GetProjectMemberRequest) =>
      unaryCall(client, 'GetProjectMember', request, options),
    addProjectMember: (request: membership.AddProjectMemberRequest) =>
      unaryCall(client, 'AddProjectMember', request, options),
    removeProjectMember: (request: membership.RemoveProjectMemberRequest) =>
      unaryCall(client, 'RemoveProjectMember', request, options),
    listInvites: (projectId: number) => unaryCall(client, 'ListInvites', { project_id: projectId }, options),
    getInvite: (request: membership.GetInviteRequest) => unaryCall(client, 'GetInvite', request, options),
    deleteInvite: (request: membership.DeleteInviteRequest) =>
      unaryCall(client, 'DeleteInvite', request, options),
    acceptInvite: (token: string) => unaryCall(client, 'AcceptInvite', { token }, options),
    listProjects: (request: membership.ListProjectsRequest) =>
      unaryCall(client, 'ListProjects', request, options),
    listReadableProjects: () => unaryCall(client, 'ListReadableProjects', {}, options),
    updateProject: (request: membership.UpdateProjectRequest) =>
      unaryCall(client, 'UpdateProject', request, options),
    deleteProject: (projectId: number) =>
      unaryCall(client, 'DeleteProject', { project_id: projectId }, options),
    listApiKeys: () => unaryCall(client, 'ListApiKeys', {}, options),
    createApiKey: () => unaryCall(client, 'CreateApiKey', {}, options),
    deleteApiKey: (apiKeyId: number) => unaryCall(client, 'DeleteApiKey', { api_key_id: apiKeyId }, options),
    updateCurrentUser: (request: membership.UpdateCurrentUserRequest) =>
      unaryCall(client, 'UpdateCurrentUser', request, options),
    getProjectAccount: (projectId: number) =>
      unaryCall(client, 'GetProjectAccount', { project_id: projectId }, options),
    getAccount: () => unaryCall(client, 'GetAccount', {}, options),
    updateAccount: (request: membership.UpdateAccountRequest) =>
      unaryCall(client, 'UpdateAccount', request, options),
    setUserEnabled: (userId: number, enabled: boolean) =>
      unaryCall(client, 'SetUserEnabled', { user_id: userId, enabled }, options),
    setApiKeyEnabled: (userId: number, apiKeyId: number, enabled: boolean) =>
      unaryCall(client, 'SetApiKeyEnabled', { user_id: userId, api_key_id: apiKeyId, enabled }, options),
    close: () => client.close(),
  };
}

export type MembershipClient = ReturnType<typeof createMembershipClient>;
