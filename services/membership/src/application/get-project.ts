import { DomainError } from '@flowboard/service-kit';
import { resolveProjectAccess } from './get-project-access';
import type { Database, Project, RoleWithMembers, User } from './ports';

export interface GetProjectInput {
  projectId: number;
  includeRoles: boolean;
  includeMembers: boolean;
}

export interface ProjectView {
  project: Project;
  owner: User;
  roles: RoleWithMembers[];
  members: User[];
}

/** A project with its owner record and, on request, its roles (with members) and its members. */
export function createGetProject(deps: { db: Database }) {
  return async (callerId: number, input: GetProjectInput): Promise<ProjectView> => {
    const { repos } = deps.db;
    const { project } = await resolveProjectAccess(repos.projects, input.projectId, callerId);
    const [owner, roles, members] = await Promise.all([
      repos.users.findById(project.ownerId),
      input.includeRoles ? repos.roles.listWithMembers(project.id) : Promise.resolve([]),
      input.includeMembers ? repos.projects.listMembers(project.id) : Promise.resolve([]),
    ]);
    if (!owner) throw new DomainError('Internal', `Owner of project ${project.id} is missing`);
    return { project, owner, roles, members };
  };
}
