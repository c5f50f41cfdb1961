import { DomainError } from '@flowboard/service-kit';
import type { AccountDefaults } from '../domain/account';
import { beginCollaboratorChange } from './accounts';
import { isWellFormedApiKey } from '../domain/secrets';
import { requireProjectAccess } from './roles';
import type { Database, Invite, OutboxSignal, Project, Repositories, Role, User } from './ports';
import { afterCommit, publishInvite, publishMember, publishRole } from './resource-events';

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

/** The sender and role of one invite, for its message (two lookups, not the project's whole role list). */
async function inviteView(repos: Repositories, invite: Invite): Promise<InviteView> {
  const sender = await repos.users.findById(invite.senderId);
  const role = await repos.roles.findInProject(invite.projectId, invite.roleId);
  if (!sender || !role) throw new DomainError('Internal', `Invite ${invite.id} has a dangling reference`);
  return { invite, sender, role };
}

/**
 * Invites after creation (docs/compat.md §5.7, §6): list, get and delete need admin access and see only
 * pending (not expired) invites; accepting needs only a valid key and the token. Delete and accept publish
 * their change events in their transaction; `signal` wakes the relay after.
 */
export function createInviteUseCases(deps: { db: Database; limits: AccountDefaults; signal?: OutboxSignal }) {
  const { db } = deps;
  const committed = afterCommit(deps.signal);
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

    /** Publishes `invite.deleted` with the invite as it was. */
    delete(callerId: number, input: { projectId: number; inviteId: number }): Promise<void> {
      return committed(
        db.transaction(async (tx) => {
          const { project } = await requireProjectAccess(tx, input.projectId, callerId, 'admin');
          const invite =
            input.inviteId > 0 ? await tx.invites.deletePending(input.projectId, input.inviteId) : undefined;
          if (!invite) throw inviteNotFound();
          const change = { projectId: project.id, actorId: callerId };
          await publishInvite(tx.outbox, change, 'invite.deleted', await inviteView(tx, invite));
        }),
      );
    },

    /**
     * Takes the invite (deleting it) and puts the caller in its role, and so in the project, in one
     * transaction; of concurrent accepts of one token exactly one succeeds. The e-mail need not match.
     * Accepting usually trades a counted address for a member; when it adds a collaborator after all (the
     * accepting user's address differs and the invited one stays counted elsewhere), the limit applies: 402.
     * Publishes `invite.accepted` (the invite as it was), then `member.added` when the caller was not a member
     * yet and `role.updated` when they were not in the invite's role yet; the actor is the caller.
     */
    accept(callerId: number, rawToken: string): Promise<{ project: Project; owner: User }> {
      const token = rawToken.trim().toLowerCase();
      if (!isWellFormedApiKey(token)) return Promise.reject(inviteNotFound());
      return committed(
        db.transaction(async (tx) => {
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
          const joined = await tx.roles.addMember(invite.roleId, callerId);
          const joinedDirectly = await tx.projects.addMember(invite.projectId, callerId);
          await checkLimit();
          const found = await tx.projects.findWithMembership(invite.projectId, callerId);
          const owner = found && (await tx.users.findById(found.project.ownerId));
          if (!found || !owner) throw inviteNotFound();

          const view = await inviteView(tx, invite);
          const change = { projectId: invite.projectId, actorId: callerId };
          await publishInvite(tx.outbox, change, 'invite.accepted', view);
          if (joined.joinedProject || joinedDirectly) {
            const caller = await tx.users.findById(callerId);
            if (!caller) throw new DomainError('Unauthenticated', 'Unknown caller');
            await publishMember(tx.outbox, change, true, caller);
          }
          if (joined.joinedRole) {
            const members = await tx.roles.listMembers(view.role.id);
            await publishRole(tx.outbox, change, 'role.updated', { ...view.role, members });
          }
          return { project: found.project, owner };
        }),
      );
    },
  };
}
