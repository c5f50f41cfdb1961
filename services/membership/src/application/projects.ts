import { makeEvent, projectDeletedV1 } from '@flowboard/events';
import { DomainError, parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { effectiveAccess, hasAccess } from '../domain/access';
import { matches, parseFilter } from '../domain/filter';
import { parseProjectChanges, PROJECT_FILTER_PROPERTIES } from '../domain/project';
import type { AccountDefaults } from '../domain/account';
import { beginCollaboratorChange } from './accounts';
import { inviteViews, type InviteView } from './invites';
import { findMember } from './project-members';
import type { UserReference } from './role-members';
import { requireProjectAccess } from './roles';
import type { Database, OutboxSignal, Project, ProjectChanges, RoleWithMembers, User } from './ports';

export interface ProjectEntry {
  project: Project;
  owner: User;
  roles: RoleWithMembers[];
  members: User[];
  /** Filled when includeInvites. */
  invites: InviteView[];
}

export interface ListProjectsInput {
  where: string;
  page: number;
  pageSize: number;
  includeRoles: boolean;
  includeMembers: boolean;
  /** `with=invites`: PermissionDenied unless the caller is admin of every project of the page. */
  includeInvites?: boolean;
  /** Only these projects (the caller's key is limited to them); absent or empty = all of the caller's. */
  onlyProjectIds?: number[];
  /** Cursor paging (README "Sync: cursors and updatedSince"): the projects after this id; `page` is ignored. */
  keyset?: { afterId: number };
}

/**
 * The page of the caller's listed projects (`all`, in id order) the input asks for: by number, or by keyset: the
 * next pageSize after the id, taking one more to know whether any follow.
 */
function pageOf(all: Project[], input: ListProjectsInput): { slice: Project[]; keyset?: { more: boolean } } {
  const pageSize = Math.max(1, input.pageSize || 100);
  if (!input.keyset) {
    const page = Math.max(1, input.page || 1);
    return { slice: all.slice((page - 1) * pageSize, page * pageSize) };
  }
  const { afterId } = input.keyset;
  if (!Number.isSafeInteger(afterId) || afterId < 0)
    throw new DomainError('InvalidArgument', "Invalid cursor: 'after_id'.", { problem: 'invalid-parameter' });
  const next = all.filter((p) => p.id > afterId).slice(0, pageSize + 1);
  return { slice: next.slice(0, pageSize), keyset: { more: next.length > pageSize } };
}

/** The project list, update and delete (docs/compat.md §5.2, §6). */
export function createProjectUseCases(deps: { db: Database; signal: OutboxSignal; limits: AccountDefaults }) {
  const { db } = deps;
  return {
    /**
     * The caller's projects at any access level, filtered by `name`, id order; one page of them with the
     * requested enrichments (only the page's projects are enriched). The keyset page is cut from the same list
     * as the numbered one, so `where` matches alike and totalItems counts alike; `keyset` is set exactly then.
     */
    async list(
      callerId: number,
      input: ListProjectsInput,
    ): Promise<{ entries: ProjectEntry[]; totalItems: number; keyset?: { more: boolean } }> {
      const filter = parseFilter(input.where, PROJECT_FILTER_PROPERTIES);
      const isProjectAdmin = async (projectId: number) => {
        const found = await db.repos.projects.findWithMembership(projectId, callerId);
        const access = found && effectiveAccess(found.facts);
        return access !== undefined && hasAccess(access, 'admin');
      };
      const only = input.onlyProjectIds?.length ? new Set(input.onlyProjectIds) : undefined;
      const all = (await db.repos.projects.listForUser(callerId)).filter(
        (p) => (!only || only.has(p.id)) && matches(filter, () => p.name),
      );
      const { slice, keyset } = pageOf(all, input);
      const owners = await db.repos.users.findByIds([...new Set(slice.map((p) => p.ownerId))]);
      const entries = await Promise.all(
        slice.map(async (project) => {
          const owner = owners.find((u) => u.id === project.ownerId);
          if (!owner) throw new DomainError('Internal', `Owner of project ${project.id} is missing`);
          if (input.includeInvites && !(await isProjectAdmin(project.id)))
            throw new DomainError(
              'PermissionDenied',
              `The 'invites' enrichment needs admin access to every listed project; not to ${project.id}.`,
            );
          const [roles, members, invites] = await Promise.all([
            input.includeRoles ? db.repos.roles.listWithMembers(project.id) : [],
            input.includeMembers ? db.repos.projects.listMembers(project.id) : [],
            input.includeInvites
              ? db.repos.invites
                  .listPending(project.id)
                  .then((list) => inviteViews(db.repos, project.id, list))
              : [],
          ]);
          return { project, owner, roles, members, invites };
        }),
      );
      return { entries, totalItems: all.length, keyset };
    },

    /** `/me/stories`: the caller's projects where they may read stories (read access or better). */
    listReadable(callerId: number): Promise<Array<{ id: number; name: string }>> {
      return db.repos.projects.listReadableForUser(callerId);
    },

    /**
     * Admin access. A new owner must already be a member (400 otherwise). A new owner's account takes the
     * project's people with it, so its collaborator limit applies (402). A conditional update
     * (expectedVersion) checks the version under the project lock, after the access check and before the
     * owner and the limit.
     */
    async update(
      callerId: number,
      input: {
        projectId: number;
        name?: string;
        description?: string;
        details?: string;
        owner?: UserReference;
        /** 0 or undefined = unconditional. */
        expectedVersion?: number;
      },
    ): Promise<{ project: Project; owner: User }> {
      const fields = parseProjectChanges(input);
      const expectedVersion = parseExpectedVersion(input.expectedVersion);
      return db.transaction(async (tx) => {
        await tx.projects.lockMembership(input.projectId);
        const { project: current } = await requireProjectAccess(tx, input.projectId, callerId, 'admin');
        requireVersion('Project', current.id, current.version, expectedVersion);
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
        const checkLimit =
          changes.ownerId === undefined
            ? undefined
            : await beginCollaboratorChange(tx, changes.ownerId, deps.limits);
        const project = await tx.projects.update(input.projectId, changes);
        await checkLimit?.();
        const owner = project && (await tx.users.findById(project.ownerId));
        if (!project || !owner) throw new DomainError('NotFound', 'Project not found');
        return { project, owner };
      });
    },

    /**
     * Owner only (403 for anyone else who can see the project). membership's rows go in one transaction with
     * the `membership.project-deleted.v1` event, which boards and files consume to delete their data. A
     * conditional delete (expectedVersion) then checks the version: a stale one deletes and sends nothing.
     */
    async delete(
      callerId: number,
      input: { projectId: number; requestId?: string; expectedVersion?: number },
    ): Promise<void> {
      const expectedVersion = parseExpectedVersion(input.expectedVersion);
      await db.transaction(async (tx) => {
        await tx.projects.lockMembership(input.projectId);
        const { project, isOwner } = await requireProjectAccess(tx, input.projectId, callerId, 'none');
        if (!isOwner) throw new DomainError('PermissionDenied', 'Only the owner can delete a project.');
        requireVersion('Project', project.id, project.version, expectedVersion);
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
