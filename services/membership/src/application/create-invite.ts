import { inviteCreatedV1, makeEvent } from '@flowboard/events';
import { DomainError } from '@flowboard/service-kit';
import type { AccountDefaults } from '../domain/account';
import { hasAccess } from '../domain/access';
import { generateInviteToken } from '../domain/secrets';
import { parseEmail } from '../domain/user';
import { beginCollaboratorChange } from './accounts';
import { resolveProjectAccess } from './get-project-access';
import type { Database, Invite, OutboxSignal, Role, User } from './ports';
import { publishInvite } from './resource-events';

export interface CreateInviteInput {
  projectId: number;
  email?: string;
  roleId: number;
  /** Correlates the published event with this request in the logs. */
  requestId?: string;
}

export interface CreatedInvite {
  invite: Invite;
  sender: User;
  role: Role;
}

/**
 * Invites an address into a project's role. The invite row and its `membership.invite-created.v1` event are
 * written in one transaction (outbox), so the e-mail goes out if and only if the invite exists, and a Kafka
 * outage never fails the request: the relay publishes once Kafka is back. Webhooks get `invite.created`
 * (flowboard.resource-changed.v1) from the same transaction.
 *
 * Checks follow docs/compat.md §3.3: membership (404) → access (403) → body (400) → state (409, then 402: a
 * pending invite counts against the account's collaborator limit).
 */
export function createCreateInvite(deps: {
  db: Database;
  inviteTtlDays: number;
  signal: OutboxSignal;
  limits: AccountDefaults;
}) {
  return async (callerId: number, input: CreateInviteInput): Promise<CreatedInvite> => {
    const created = await deps.db.transaction(async (tx) => {
      const { project, access } = await resolveProjectAccess(tx.projects, input.projectId, callerId);
      if (!hasAccess(access, 'admin'))
        throw new DomainError('PermissionDenied', 'Inviting needs admin access');
      const email = parseEmail(input.email);
      const role = input.roleId > 0 ? await tx.roles.findInProject(project.id, input.roleId) : undefined;
      if (!role) {
        throw new DomainError('InvalidArgument', `'role' ${input.roleId} is not a role of this project.`, {
          problem: 'invalid-reference',
        });
      }
      const sender = await tx.users.findById(callerId);
      if (!sender) throw new DomainError('Unauthenticated', 'Unknown caller');

      await tx.invites.lockAddress(project.id, email);
      if (await tx.projects.hasMemberWithEmail(project.id, email)) {
        throw new DomainError('AlreadyExists', 'This address belongs to a member of the project already.');
      }
      if (await tx.invites.hasPending(project.id, email)) {
        throw new DomainError('AlreadyExists', 'A pending invite for this address exists already.');
      }
      // The account lock serialises invites to all the account's projects: concurrent ones cannot overshoot.
      const checkLimit = await beginCollaboratorChange(tx, project.ownerId, deps.limits);
      const invite = await tx.invites.insert({
        projectId: project.id,
        roleId: role.id,
        email,
        token: generateInviteToken(),
        senderId: sender.id,
        ttlDays: deps.inviteTtlDays,
      });
      await checkLimit();
      const event = makeEvent(inviteCreatedV1, 'membership', {
        inviteId: invite.id,
        projectId: project.id,
        projectName: project.name,
        roleName: role.name,
        email: invite.email,
        token: invite.token,
        senderName: sender.name,
        expiresAt: invite.expiresAt.toISOString(),
      });
      await tx.outbox.enqueue({
        id: event.id,
        topic: inviteCreatedV1.topic,
        key: String(project.id),
        payload: event,
        headers: input.requestId ? { 'x-request-id': input.requestId } : {},
      });
      const created = { invite, sender, role };
      await publishInvite(tx.outbox, { projectId: project.id, actorId: callerId }, 'invite.created', created);
      return created;
    });
    deps.signal();
    return created;
  };
}
