import { DomainError } from '@flowboard/service-kit';
import { hasAccess } from '../domain/access';
import { resolveProjectAccess } from './get-project-access';
import { inviteViews, type InviteView } from './invites';
import type { Database, Project, RoleWithMembers, User } from './ports';

export interface GetProjectInput {
  projectId: number;
  includeRoles: boolean;
  includeMembers: boolean;
  /** Pending invites (`with=invites`): admin access only (docs/compat.md §4.3), else PermissionDenied. */
  includeInvites?: boolean;
}

export interface ProjectView {
  project: Project;
  owner: User;
  roles: RoleWithMembers[];
  members: User[];
  invites: InviteView[];
}

/** A project with its owner record and, on request, its roles (with members) and its members. */
export function createGetProject(deps: { db: Database }) {
  return async (callerId: number, input: GetProjectInput): Promise<ProjectView> => {
    const { repos } = deps.db;
    const { project, access } = await resolveProjectAccess(repos.projects, input.projectId, callerId);
    if (input.includeInvites && !hasAccess(access, 'admin'))
      throw new DomainError(
        'PermissionDenied',
        "The 'invites' enrichment needs admin access to the project.",
      );
    const [owner, roles, members, invites] = await Promise.all([
      repos.users.findById(project.ownerId),
      input.includeRoles ? repos.roles.listWithMembers(project.id) : Promise.resolve([]),
      input.includeMembers ? repos.projects.listMembers(project.id) : Promise.resolve([]),
      input.includeInvites
        ? repos.invites.listPending(project.id).then((list) => inviteViews(repos, project.id, list))
        : Promise.resolve([]),
    ]);
    if (!owner) throw new DomainError('Internal', `Owner of project ${project.id} is missing`);
    return { project, owner, roles, members, invites };
  };
}
