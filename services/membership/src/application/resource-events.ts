import { actorKeyOf } from '@flowboard/service-kit';
import {
  resourceChangedMessage,
  resourceSubject,
  type ResourceEventType,
  type ResourceSubjectKind,
} from '@flowboard/events';
import type { Invite, Outbox, Role, RoleWithMembers, User } from './ports';
import { toInviteMessage, toRoleMessage, toUserMessage } from './resource-messages';

/*
 * What membership publishes for webhooks (flowboard.resource-changed.v1), written to the outbox of the change's
 * transaction. When one request changes several resources, the one it addressed comes first, then what followed
 * from it (a user put in a role: role.updated, then member.added if that made them a project member).
 *
 * A project's members are its owner, its direct members and its roles' members (P/members). member.added and
 * member.removed mark a user entering or leaving that set; a member joining or leaving a role while staying in
 * the project is role.updated only (the Role message lists its members). An owner change adds or removes nobody:
 * the new owner is a member already, and the old one keeps the direct membership every owner has.
 */

interface Change {
  projectId: number;
  /** The caller who made the change. */
  actorId: number;
}

function publish(
  outbox: Outbox,
  change: Change,
  type: Extract<ResourceEventType, `${'member' | 'role' | 'invite'}.${string}`>,
  subject: [ResourceSubjectKind, number],
  resource: object,
): Promise<void> {
  return outbox.enqueue(
    resourceChangedMessage('membership', {
      projectId: change.projectId,
      actorId: change.actorId,
      ...actorKeyOf(change.actorId),
      type,
      subject: resourceSubject(...subject),
      // A proto message is a plain object; its interface just has no index signature.
      resource: resource as Record<string, unknown>,
    }),
  );
}

/** A user entered (`added`) or left the project's members; the resource is the member as P/members shows it. */
export const publishMember = (outbox: Outbox, change: Change, added: boolean, user: User) =>
  publish(
    outbox,
    change,
    added ? 'member.added' : 'member.removed',
    ['member', user.id],
    toUserMessage(user),
  );

/** The resource is the role with its members, after the change (before it, for `role.deleted`). */
export const publishRole = (
  outbox: Outbox,
  change: Change,
  type: 'role.created' | 'role.updated' | 'role.deleted',
  role: RoleWithMembers,
) => publish(outbox, change, type, ['role', role.id], toRoleMessage(role));

/** The resource is the invite as GetInvite answers it (for `accepted` and `deleted`: as it was). */
export const publishInvite = (
  outbox: Outbox,
  change: Change,
  type: 'invite.created' | 'invite.accepted' | 'invite.deleted',
  invite: { invite: Invite; sender: User; role: Role },
) =>
  publish(
    outbox,
    change,
    type,
    ['invite', invite.invite.id],
    toInviteMessage(invite.invite, invite.sender, invite.role),
  );

/** Resolves as `write` does, then wakes the outbox relay: its transaction committed, with its events. */
export const afterCommit =
  (signal: (() => void) | undefined) =>
  async <T>(write: Promise<T>): Promise<T> => {
    const result = await write;
    signal?.();
    return result;
  };
