import { DomainError } from '@flowboard/service-kit';
import type { AccountDefaults } from '../domain/account';
import { beginCollaboratorChange } from './accounts';
import { matches, parseFilter, USER_FILTER_PROPERTIES } from '../domain/filter';
import { resolveUserReference, type UserReference } from './role-members';
import { membershipWrite, requireProjectAccess } from './roles';
import type { Database, OutboxSignal, Repositories, User } from './ports';
import { afterCommit, publishMember, publishRole } from './resource-events';

/** The role new members join (docs/compat.md §5.2: "the role named Members, if any"). */
export const MEMBERS_ROLE_NAME = 'Members';

const notAMember = () => new DomainError('NotFound', 'The user is not a member of this project.');

export async function findMember(repos: Repositories, projectId: number, ref: UserReference): Promise<User> {
  const user =
    ref.id > 0
      ? await repos.users.findById(ref.id)
      : ref.userName.trim()
        ? await repos.users.findByUserName(ref.userName.trim())
        : undefined;
  if (!user || !(await repos.projects.isMember(projectId, user.id))) throw notAMember();
  return user;
}

/**
 * `P/members` (docs/compat.md §5.2): the owner, direct members and role members. Adding joins the project and
 * its "Members" role; removing leaves the project and all its roles (the owner cannot be removed: 409). Each
 * publishes `member.added` / `member.removed`, then `role.updated` for each role the member joined or left.
 */
export function createProjectMemberUseCases(deps: {
  db: Database;
  limits: AccountDefaults;
  signal?: OutboxSignal;
}) {
  const { db } = deps;
  const committed = afterCommit(deps.signal);
  return {
    async list(callerId: number, input: { projectId: number; where: string }): Promise<User[]> {
      const filter = parseFilter(input.where, USER_FILTER_PROPERTIES);
      await requireProjectAccess(db.repos, input.projectId, callerId, 'read');
      const members = await db.repos.projects.listMembers(input.projectId);
      return members.filter((u) =>
        matches(filter, (p) => (p === 'name' ? u.name : p === 'email' ? u.email : u.userName)),
      );
    },

    async get(callerId: number, input: { projectId: number; user: UserReference }): Promise<User> {
      await requireProjectAccess(db.repos, input.projectId, callerId, 'read');
      return findMember(db.repos, input.projectId, input.user);
    },

    /**
     * An existing member is a no-op (no event). Answers the members after the change; over the account's limit:
     * 402.
     */
    add(callerId: number, input: { projectId: number; user: UserReference }): Promise<User[]> {
      return committed(
        membershipWrite(db, input.projectId, callerId, async (tx, project) => {
          const user = await resolveUserReference(tx, input.user);
          if (!(await tx.projects.isMember(input.projectId, user.id))) {
            const checkLimit = await beginCollaboratorChange(tx, project.ownerId, deps.limits);
            await tx.projects.addMember(input.projectId, user.id);
            const role = await tx.roles.findByName(input.projectId, MEMBERS_ROLE_NAME);
            const joined = role && (await tx.roles.addMember(role.id, user.id));
            await checkLimit();
            const change = { projectId: project.id, actorId: callerId };
            await publishMember(tx.outbox, change, true, user);
            if (role && joined?.joinedRole) {
              const members = await tx.roles.listMembers(role.id);
              await publishRole(tx.outbox, change, 'role.updated', { ...role, members });
            }
          }
          return tx.projects.listMembers(input.projectId);
        }),
      );
    },

    remove(callerId: number, input: { projectId: number; user: UserReference }): Promise<void> {
      return committed(
        membershipWrite(db, input.projectId, callerId, async (tx, project) => {
          const user = await findMember(tx, input.projectId, input.user);
          const found = await tx.projects.findWithMembership(input.projectId, user.id);
          if (found?.facts.isOwner)
            throw new DomainError('Conflict', 'The owner cannot be removed from the project.');
          const leftRoles = await tx.projects.removeMember(input.projectId, user.id);
          const change = { projectId: project.id, actorId: callerId };
          await publishMember(tx.outbox, change, false, user);
          const roles = leftRoles.length ? await tx.roles.listWithMembers(input.projectId) : [];
          for (const role of roles.filter((r) => leftRoles.includes(r.id)))
            await publishRole(tx.outbox, change, 'role.updated', role);
        }),
      );
    },
  };
}
