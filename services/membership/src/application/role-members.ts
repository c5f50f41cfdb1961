import { DomainError } from '@flowboard/service-kit';
import type { AccountDefaults } from '../domain/account';
import { beginCollaboratorChange } from './accounts';
import { matches, parseFilter, USER_FILTER_PROPERTIES, type Filter } from '../domain/filter';
import { membershipWrite, requireProjectAccess, roleNotFound } from './roles';
import type { Database, OutboxSignal, Repositories, Role, User } from './ports';
import { afterCommit, publishMember, publishRole } from './resource-events';

/** A user named in a request: by id when positive, else by login name (ignoring case). */
export interface UserReference {
  id: number;
  userName: string;
}

/** Resolves a reference from a request body; unknown → 400 `invalid-reference`. */
export async function resolveUserReference(repos: Repositories, ref: UserReference): Promise<User> {
  const user =
    ref.id > 0
      ? await repos.users.findById(ref.id)
      : ref.userName.trim()
        ? await repos.users.findByUserName(ref.userName.trim())
        : undefined;
  if (!user) {
    const shown = ref.id > 0 ? String(ref.id) : `'${ref.userName}'`;
    throw new DomainError('InvalidArgument', `Unknown user ${shown}.`, { problem: 'invalid-reference' });
  }
  return user;
}

const filtered = (users: User[], filter: Filter | undefined): User[] =>
  users.filter((u) => matches(filter, (p) => (p === 'name' ? u.name : p === 'email' ? u.email : u.userName)));

async function roleIn(repos: Repositories, projectId: number, roleId: number): Promise<Role> {
  const role = roleId > 0 ? await repos.roles.findInProject(projectId, roleId) : undefined;
  if (!role) throw roleNotFound();
  return role;
}

const sameUsers = (a: User[], b: User[]) =>
  a.length === b.length && a.every((u) => b.some((v) => v.id === u.id));

/**
 * Members of one role. Joining a role makes the user a project member; losing their last role of the project
 * ends that (project members are grouped into roles, spec), in the same transaction; the owner always stays.
 * Each write answers the role's members after the change, and publishes `role.updated` when they changed, then
 * `member.added` / `member.removed` for whom that made join or leave the project.
 */
export function createRoleMemberUseCases(deps: {
  db: Database;
  limits: AccountDefaults;
  signal?: OutboxSignal;
}) {
  const { db } = deps;
  const committed = afterCommit(deps.signal);
  return {
    async list(callerId: number, input: { projectId: number; roleId: number; where: string }) {
      const filter = parseFilter(input.where, USER_FILTER_PROPERTIES);
      await requireProjectAccess(db.repos, input.projectId, callerId, 'read');
      const role = await roleIn(db.repos, input.projectId, input.roleId);
      return filtered(await db.repos.roles.listMembers(role.id), filter);
    },

    add(callerId: number, input: { projectId: number; roleId: number; user: UserReference }) {
      return committed(
        membershipWrite(db, input.projectId, callerId, async (tx, project) => {
          const role = await roleIn(tx, input.projectId, input.roleId);
          const user = await resolveUserReference(tx, input.user);
          const checkLimit = await beginCollaboratorChange(tx, project.ownerId, deps.limits);
          const joined = await tx.roles.addMember(role.id, user.id);
          await checkLimit();
          const members = await tx.roles.listMembers(role.id);
          const change = { projectId: project.id, actorId: callerId };
          if (joined.joinedRole) await publishRole(tx.outbox, change, 'role.updated', { ...role, members });
          if (joined.joinedProject) await publishMember(tx.outbox, change, true, user);
          return members;
        }),
      );
    },

    /** All members are removed and the given ones added (spec). */
    set(callerId: number, input: { projectId: number; roleId: number; users: UserReference[] }) {
      return committed(
        membershipWrite(db, input.projectId, callerId, async (tx, project) => {
          const role = await roleIn(tx, input.projectId, input.roleId);
          const users: User[] = [];
          for (const ref of input.users) users.push(await resolveUserReference(tx, ref));
          const checkLimit = await beginCollaboratorChange(tx, project.ownerId, deps.limits);
          const previous = await tx.roles.removeAllMembers(role.id);
          const joinedProject: User[] = [];
          for (const user of users) {
            if ((await tx.roles.addMember(role.id, user.id)).joinedProject) joinedProject.push(user);
          }
          // Before the count: whoever left the project no longer counts as a collaborator.
          const left = await tx.projects.removeRolelessMembers(
            input.projectId,
            previous.map((u) => u.id),
          );
          await checkLimit();
          const members = await tx.roles.listMembers(role.id);
          const change = { projectId: project.id, actorId: callerId };
          if (!sameUsers(previous, members))
            await publishRole(tx.outbox, change, 'role.updated', { ...role, members });
          for (const user of joinedProject) await publishMember(tx.outbox, change, true, user);
          for (const user of previous.filter((u) => left.includes(u.id)))
            await publishMember(tx.outbox, change, false, user);
          return members;
        }),
      );
    },

    /** `{user}` is a path segment: an unknown user, or one not in the role, is 404. */
    remove(
      callerId: number,
      input: { projectId: number; roleId: number; user: UserReference; where: string },
    ) {
      const filter = parseFilter(input.where, USER_FILTER_PROPERTIES);
      return committed(
        membershipWrite(db, input.projectId, callerId, async (tx, project) => {
          const role = await roleIn(tx, input.projectId, input.roleId);
          const user =
            input.user.id > 0
              ? await tx.users.findById(input.user.id)
              : await tx.users.findByUserName(input.user.userName);
          if (!user || !(await tx.roles.removeMember(role.id, user.id))) {
            throw new DomainError('NotFound', 'The user is not a member of this role.');
          }
          const left = await tx.projects.removeRolelessMembers(input.projectId, [user.id]);
          const members = await tx.roles.listMembers(role.id);
          const change = { projectId: project.id, actorId: callerId };
          await publishRole(tx.outbox, change, 'role.updated', { ...role, members });
          if (left.includes(user.id)) await publishMember(tx.outbox, change, false, user);
          return filtered(members, filter);
        }),
      );
    },
  };
}
