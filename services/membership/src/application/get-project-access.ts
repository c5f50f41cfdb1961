import { DomainError } from '@flowboard/service-kit';
import { effectiveAccess, type AccessLevel } from '../domain/access';
import type { Project, ProjectRepository } from './ports';

export interface ProjectAccess {
  project: Project;
  access: AccessLevel;
  isOwner: boolean;
}

/**
 * The caller's effective access on a project. Unknown project and non-member look the same (NotFound), so a
 * project's existence is never revealed (docs/compat.md §3.2). Called on every project request: one indexed
 * query.
 */
export async function resolveProjectAccess(
  projects: ProjectRepository,
  projectId: number,
  callerId: number,
): Promise<ProjectAccess> {
  const found = projectId > 0 ? await projects.findWithMembership(projectId, callerId) : undefined;
  const access = found ? effectiveAccess(found.facts) : undefined;
  if (!found || access === undefined) throw new DomainError('NotFound', 'Project not found');
  return { project: found.project, access, isOwner: found.facts.isOwner };
}

export function createGetProjectAccess(deps: { db: { repos: { projects: ProjectRepository } } }) {
  return (callerId: number, projectId: number): Promise<ProjectAccess> =>
    resolveProjectAccess(deps.db.repos.projects, projectId, callerId);
}
