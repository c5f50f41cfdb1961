import { DomainError } from '@flowboard/service-kit';
import { DEFAULT_ROLES, parseNewProject } from '../domain/project';
import type { Database, Project, User } from './ports';

export interface CreateProjectInput {
  name?: string;
  description?: string;
  details?: string;
}

/**
 * The caller becomes the owner and a member, and joins the new "Administrators" role; a "Members" role is
 * created too (docs/compat.md §6). One transaction: a project never exists without its owner's admin role.
 */
export function createCreateProject(deps: { db: Database }) {
  return async (callerId: number, input: CreateProjectInput): Promise<{ project: Project; owner: User }> => {
    const fields = parseNewProject(input);
    return deps.db.transaction(async (tx) => {
      const owner = await tx.users.findById(callerId);
      if (!owner) throw new DomainError('Unauthenticated', 'Unknown caller');
      const project = await tx.projects.insert({ ...fields, ownerId: callerId });
      await tx.projects.addMember(project.id, callerId);
      for (const template of DEFAULT_ROLES) {
        const role = await tx.roles.insert({
          projectId: project.id,
          name: template.name,
          access: template.access,
        });
        if (template.ownerJoins) await tx.roles.addMember(role.id, callerId);
      }
      return { project, owner };
    });
  };
}
