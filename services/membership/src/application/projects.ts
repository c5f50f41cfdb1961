import { makeEvent, projectDeletedV1 } from '@flowboard/events';
import { DomainError } from '@flowboard/service-kit';
import { matches, parseFilter } from '../domain/filter';
import { parseProjectChanges, PROJECT_FILTER_PROPERTIES } from '../domain/project';
import { findMember } from './project-members';
import type { UserReference } from './role-members';
import { requireProjectAccess } from './roles';
import type { Database, OutboxSignal, Project, ProjectChanges, RoleWithMembers, User } from './ports';

export interface ProjectEntry {
  project: Project;
  owner: User;
  roles: RoleWithMembers[];
  members: User[];
}

export interface ListProjectsInput {
  where: string;
  page: number;
  pageSize: number;
  includeRoles: boolean;
  includeMembers: boolean;
}

/** The project list, update and delete (api-compat §5.2, §6). */
export function createProjectUseCases(deps: { db: Database; signal: OutboxSignal }) {
  const { db } = deps;
  return {
    /**
     * The caller's projects at any access level, filtered by `name`, id order; one page of them with the
     * requested enrichments (only the page's projects are enriched).
     */
    async list(
      callerId: number,
      input: ListProjectsInput,
    ): Promise<{ entries: ProjectEntry[]; totalItems: number }> {
      const filter = parseFilter(input.where, PROJECT_FILTER_PROPERTIES);
      const all = (await db.repos.projects.listForUser(callerId)).filter((p) =>
        matches(filter, () => p.name),
      );
      const pageSize = Math.max(1, input.pageSize || 100);
      const page = Math.max(1, input.page || 1);
      const slice = all.slice((page - 1) * pageSize, page * pageSize);
      const owners = await db.repos.users.findByIds([...new Set(slice.map((p) => p.ownerId))]);
      const entries = await Promise.all(
        slice.map(async (project) => {
          const owner = owners.find((u) => u.id === project.ownerId);
          if (!owner) throw new DomainError('Internal', `Owner of project ${project.id} is missing`);
          const [roles, members] = await Promise.all([
            input.includeRoles ? db.repos.roles.listWithMembers(project.id) : [],
            input.includeMembers ? db.repos.projects.listMembers(project.id) : [],
          ]);
          return { project, owner, roles, members };
        }),
      );
      return { entries, totalItems: all.length };
    },

    /** Admin access. A new owner must already be a member (400 otherwise). */
    async update(
      callerId: number,
      input: {
        projectId: number;
        name?: string;
        description?: string;
        details?: string;
        owner?: UserReference;
      },
    ): Promise<{ project: Project; owner: User }> {
      const fields = parseProjectChanges(input);
      return db.transaction(async (tx) => {
        await tx.projects.lockMembership(input.projectId);
        await requireProjectAccess(tx, input.projectId, callerId, 'admin');
        const changes: ProjectChanges = { ...fields };
        if (input.owner) {
          const owner = await findMember(tx, input.projectId, input.owner).catch((err: unknown) => {
            if (err instanceof DomainError && err.kind === 'NotFound') {
              throw new DomainError('InvalidArgument', "'owner' must be a member of the project.", {
                problem: 'invalid-reference',
              });
            }
            throw err;
          });
          changes.ownerId = owner.id;
        }
        const project = await tx.projects.update(input.projectId, changes);
        const owner = project && (await tx.users.findById(project.ownerId));
        if (!project || !owner) throw new DomainError('NotFound', 'Project not found');
        return { project, owner };
      });
    },

    /**
     * Owner only (403 for anyone else who can see the project). membership's rows go in one transaction with
     * the `membership.project-deleted.v1` event, which boards and files consume to delete their data.
     */
    async delete(callerId: number, input: { projectId: number; requestId?: string }): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.projects.lockMembership(input.projectId);
        const { project, isOwner } = await requireProjectAccess(tx, input.projectId, callerId, 'none');
        if (!isOwner) throw new DomainError('PermissionDenied', 'Only the owner can delete a project.');
        await tx.projects.delete(project.id);
        const event = makeEvent(projectDeletedV1, 'membership', {
          projectId: project.id,
          projectName: project.name,
          ownerId: project.ownerId,
          deletedBy: callerId,
          deletedAt: new Date().toISOString(),
        });
        await tx.outbox.enqueue({
          id: event.id,
          topic: projectDeletedV1.topic,
          key: String(project.id),
          payload: event,
          headers: input.requestId ? { 'x-request-id': input.requestId } : {},
        });
      });
      deps.signal();
    },
  };
}
