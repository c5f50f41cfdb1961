import { DomainError } from '@flowboard/service-kit';
import type { AccountDefaults } from '../domain/account';
import { beginCollaboratorChange } from './accounts';
import { matches, parseFilter, USER_FILTER_PROPERTIES, type Filter } from '../domain/filter';
import { membershipWrite, requireProjectAccess, roleNotFound } from './roles';
import type { Database, Repositories, User } from './ports';

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

async function roleIdIn(repos: Repositories, projectId: number, roleId: number): Promise<number> {
  const role = roleId > 0 ? await repos.roles.findInProject(projectId, roleId) : undefined;
  if (!role) throw roleNotFound();
  return role.id;
}

/**
 * Members of one role. Joining a role makes the user a project member; losing their last role of the project
 * ends that (project members are grouped into roles, spec), in the same transaction; the owner always stays.
 * Each write answers the role's members after the change.
 */
export function createRoleMemberUseCases(deps: { db: Database; limits: AccountDefaults }) {
  const { db } = deps;
  return {
    async list(callerId: number, input: { projectId: number; roleId: number; where: string }) {
      const filter = parseFilter(input.where, USER_FILTER_PROPERTIES);
      await requireProjectAccess(db.repos, input.projectId, callerId, 'read');
      const roleId = await roleIdIn(db.repos, input.projectId, input.roleId);
      return filtered(await db.repos.roles.listMembers(roleId), filter);
    },

    add(callerId: number, input: { projectId: number; roleId: number; user: UserReference }) {
      return membershipWrite(db, input.projectId, callerId, async (tx, project) => {
        const roleId = await roleIdIn(tx, input.projectId, input.roleId);
        const user = await resolveUserReference(tx, input.user);
        const checkLimit = await beginCollaboratorChange(tx, project.ownerId, deps.limits);
        await tx.roles.addMember(roleId, user.id);
        await checkLimit();
        return tx.roles.listMembers(roleId);
      });
    },

    /** All members are removed and the given ones added (spec). */
    set(callerId: number, input: { projectId: number; roleId: number; users: UserReference[] }) {
      return membershipWrite(db, input.projectId, callerId, async (tx, project) => {
        const roleId = await roleIdIn(tx, input.projectId, input.roleId);
        const users: User[] = [];
        for (const ref of input.users) users.push(await resolveUserReference(tx, ref));
        const checkLimit = await beginCollaboratorChange(tx, project.ownerId, deps.limits);
        const previous = await tx.roles.removeAllMembers(roleId);
        for (const user of users) await tx.roles.addMember(roleId, user.id);
        // Before the count: whoever left the project no longer counts as a collaborator.
        await tx.projects.removeRolelessMembers(input.projectId, previous);
        await checkLimit();
        return tx.roles.listMembers(roleId);
      });
    },

    /** `{user}` is a path segment: an unknown user, or one not in the role, is 404. */
    remove(
      callerId: number,
      input: { projectId: number; roleId: number; user: UserReference; where: string },
    ) {
      const filter = parseFilter(input.where, USER_FILTER_PROPERTIES);
      return membershipWrite(db, input.projectId, callerId, async (tx) => {
        const roleId = await roleIdIn(tx, input.projectId, input.roleId);
        const user =
          input.user.id > 0
            ? await tx.users.findById(input.user.id)
            : await tx.users.findByUserName(input.user.userName);
        if (!user || !(await tx.roles.removeMember(roleId, user.id))) {
          throw new DomainError('NotFound', 'The user is not a member of this role.');
        }
        await tx.projects.removeRolelessMembers(input.projectId, [user.id]);
        return filtered(await tx.roles.listMembers(roleId), filter);
      });
    },
  };
}
