import { DomainError, parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { hasAccess, type AccessLevel } from '../domain/access';
import { matches, parseFilter, ROLE_FILTER_PROPERTIES } from '../domain/filter';
import { assertAdminRemains, parseAccess, parseRoleName } from '../domain/role';
import { resolveProjectAccess } from './get-project-access';
import type { Database, OutboxSignal, Project, Repositories, RoleWithMembers } from './ports';
import { afterCommit, publishInvite, publishMember, publishRole } from './resource-events';

/**
 * Roles of a project (spec "Roles and members"). Reads need read access, writes admin access; the gateway
 * checks the same, this is the service's own guard. Writes lock the project's membership first and end with
 * the last-admin rule, so concurrent changes can never leave a project without an admin role member.
 */
export async function requireProjectAccess(
  repos: Repositories,
  projectId: number,
  callerId: number,
  level: AccessLevel,
) {
  const found = await resolveProjectAccess(repos.projects, projectId, callerId);
  if (!hasAccess(found.access, level)) {
    throw new DomainError('PermissionDenied', `This needs ${level} access to the project.`);
  }
  return found;
}

export const roleNotFound = () => new DomainError('NotFound', 'Role not found');

/** Runs a membership write: lock, access check, the change, then the last-admin rule — one transaction. */
export function membershipWrite<T>(
  db: Database,
  projectId: number,
  callerId: number,
  change: (tx: Repositories, project: Project) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.projects.lockMembership(projectId);
    const { project } = await requireProjectAccess(tx, projectId, callerId, 'admin');
    const result = await change(tx, project);
    assertAdminRemains(await tx.projects.countAdminRoleMembers(projectId));
    return result;
  });
}

async function roleIn(repos: Repositories, projectId: number, roleId: number): Promise<RoleWithMembers> {
  const role = roleId > 0 ? await repos.roles.findWithMembers(projectId, roleId) : undefined;
  if (!role) throw roleNotFound();
  return role;
}

/** Each write publishes its change events (resource-events.ts) in its transaction; `signal` wakes the relay. */
export function createRoleUseCases(deps: { db: Database; signal?: OutboxSignal }) {
  const { db } = deps;
  const committed = afterCommit(deps.signal);
  return {
    async list(callerId: number, input: { projectId: number; where: string }): Promise<RoleWithMembers[]> {
      const filter = parseFilter(input.where, ROLE_FILTER_PROPERTIES);
      await requireProjectAccess(db.repos, input.projectId, callerId, 'read');
      const roles = await db.repos.roles.listWithMembers(input.projectId);
      return roles.filter((role) => matches(filter, () => role.name));
    },

    async get(callerId: number, input: { projectId: number; roleId: number }): Promise<RoleWithMembers> {
      await requireProjectAccess(db.repos, input.projectId, callerId, 'read');
      return roleIn(db.repos, input.projectId, input.roleId);
    },

    create(callerId: number, input: { projectId: number; name: string; access?: string }) {
      const name = parseRoleName(input.name);
      const access = parseAccess(input.access);
      return committed(
        membershipWrite(db, input.projectId, callerId, async (tx, project) => {
          const role = await tx.roles.insert({ projectId: input.projectId, name, access });
          const created: RoleWithMembers = { ...role, members: [] };
          await publishRole(tx.outbox, { projectId: project.id, actorId: callerId }, 'role.created', created);
          return created;
        }),
      );
    },

    /**
     * A conditional update (expectedVersion) checks the version right after finding the role. `role.updated`
     * only when the name or access changed (the version rose).
     */
    update(
      callerId: number,
      input: { projectId: number; roleId: number; name?: string; access?: string; expectedVersion?: number },
    ): Promise<RoleWithMembers> {
      const changes = {
        name: input.name === undefined ? undefined : parseRoleName(input.name),
        access: input.access === undefined ? undefined : parseAccess(input.access),
      };
      const expectedVersion = parseExpectedVersion(input.expectedVersion);
      return committed(
        membershipWrite(db, input.projectId, callerId, async (tx, project) => {
          const role = await roleIn(tx, input.projectId, input.roleId);
          requireVersion('Role', role.id, role.version, expectedVersion);
          await tx.roles.update(role.id, changes);
          const updated = await roleIn(tx, input.projectId, role.id);
          if (updated.version !== role.version)
            await publishRole(
              tx.outbox,
              { projectId: project.id, actorId: callerId },
              'role.updated',
              updated,
            );
          return updated;
        }),
      );
    },

    /**
     * A conditional delete (expectedVersion) checks the version before the last-admin rule. Publishes
     * `role.deleted` (the role as it was, with its members), `member.removed` for those it was the last role of,
     * and `invite.deleted` for its pending invites, which go with it.
     */
    delete(
      callerId: number,
      input: { projectId: number; roleId: number; expectedVersion?: number },
    ): Promise<void> {
      const expectedVersion = parseExpectedVersion(input.expectedVersion);
      return committed(
        membershipWrite(db, input.projectId, callerId, async (tx, project) => {
          const role = await roleIn(tx, input.projectId, input.roleId);
          requireVersion('Role', role.id, role.version, expectedVersion);
          const invites = await tx.roles.delete(role.id);
          // Its members for whom it was the last role leave the project (the project lock keeps the list exact).
          const removed = await tx.projects.removeRolelessMembers(
            input.projectId,
            role.members.map((u) => u.id),
          );
          const change = { projectId: project.id, actorId: callerId };
          await publishRole(tx.outbox, change, 'role.deleted', role);
          for (const user of role.members.filter((u) => removed.includes(u.id)))
            await publishMember(tx.outbox, change, false, user);
          const senders = invites.length
            ? await tx.users.findByIds([...new Set(invites.map((i) => i.senderId))])
            : [];
          for (const invite of invites) {
            const sender = senders.find((u) => u.id === invite.senderId);
            if (!sender) throw new DomainError('Internal', `Invite ${invite.id} has a dangling reference`);
            await publishInvite(tx.outbox, change, 'invite.deleted', { invite, sender, role });
          }
        }),
      );
    },
  };
}
