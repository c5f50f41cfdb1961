import { DomainError } from '@flowboard/service-kit';
import type { AccountDefaults } from '../domain/account';
import { beginCollaboratorChange } from './accounts';
import { isWellFormedApiKey } from '../domain/secrets';
import { requireProjectAccess } from './roles';
import type { Database, Invite, Project, Repositories, Role, User } from './ports';

const inviteNotFound = () => new DomainError('NotFound', 'Invite not found');

export interface InviteView {
  invite: Invite;
  sender: User;
  role: Role;
}

/** Sender and role records for invites, with one user lookup for all of them. */
export async function inviteViews(
  repos: Repositories,
  projectId: number,
  invites: Invite[],
): Promise<InviteView[]> {
  if (!invites.length) return [];
  const [senders, roles] = await Promise.all([
    repos.users.findByIds([...new Set(invites.map((i) => i.senderId))]),
    repos.roles.listWithMembers(projectId),
  ]);
  return invites.map((invite) => {
    const sender = senders.find((u) => u.id === invite.senderId);
    const role = roles.find((r) => r.id === invite.roleId);
    if (!sender || !role) throw new DomainError('Internal', `Invite ${invite.id} has a dangling reference`);
    return { invite, sender, role };
  });
}

/**
 * Invites after creation (docs/compat.md §5.7, §6): list, get and delete need admin access and see only
 * pending (not expired) invites; accepting needs only a valid key and the token.
 */
export function createInviteUseCases(deps: { db: Database; limits: AccountDefaults }) {
  const { db } = deps;
  return {
    async list(callerId: number, projectId: number): Promise<InviteView[]> {
      await requireProjectAccess(db.repos, projectId, callerId, 'admin');
      return inviteViews(db.repos, projectId, await db.repos.invites.listPending(projectId));
    },

    async get(callerId: number, input: { projectId: number; inviteId: number }): Promise<InviteView> {
      await requireProjectAccess(db.repos, input.projectId, callerId, 'admin');
      const invite =
        input.inviteId > 0 ? await db.repos.invites.findPending(input.projectId, input.inviteId) : undefined;
      if (!invite) throw inviteNotFound();
      return (await inviteViews(db.repos, input.projectId, [invite]))[0] as InviteView;
    },

    async delete(callerId: number, input: { projectId: number; inviteId: number }): Promise<void> {
      await requireProjectAccess(db.repos, input.projectId, callerId, 'admin');
      if (!(input.inviteId > 0 && (await db.repos.invites.deletePending(input.projectId, input.inviteId))))
        throw inviteNotFound();
    },

    /**
     * Takes the invite (deleting it) and puts the caller in its role, and so in the project, in one
     * transaction; of concurrent accepts of one token exactly one succeeds. The e-mail need not match.
     * Accepting usually trades a counted address for a member; when it adds a collaborator after all (the
     * accepting user's address differs and the invited one stays counted elsewhere), the limit applies: 402.
     */
    accept(callerId: number, rawToken: string): Promise<{ project: Project; owner: User }> {
      const token = rawToken.trim().toLowerCase();
      if (!isWellFormedApiKey(token)) return Promise.reject(inviteNotFound());
      return db.transaction(async (tx) => {
        // The project row first, then the invite row: the order role deletes (which cascade to invites) take
        // them in, so the two never deadlock. The take then decides which of concurrent accepts wins.
        const pending = await tx.invites.findPendingByToken(token);
        if (!pending) throw inviteNotFound();
        await tx.projects.lockMembership(pending.projectId);
        const project = await tx.projects.findById(pending.projectId);
        if (!project) throw inviteNotFound();
        const checkLimit = await beginCollaboratorChange(tx, project.ownerId, deps.limits);
        const invite = await tx.invites.takeByToken(token);
        if (!invite) throw inviteNotFound();
        await tx.roles.addMember(invite.roleId, callerId);
        await tx.projects.addMember(invite.projectId, callerId);
        await checkLimit();
        const found = await tx.projects.findWithMembership(invite.projectId, callerId);
        const owner = found && (await tx.users.findById(found.project.ownerId));
        if (!found || !owner) throw inviteNotFound();
        return { project: found.project, owner };
      });
    },
  };
}
