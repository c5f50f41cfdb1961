/**
 * Invites expire (docs/compat.md §5.7): an expired invite is not listed, not counted and cannot be accepted.
 * The database applies the same rule with `expires_at > now()`; this is the rule for code that holds an invite.
 */
export const isPending = (invite: { expiresAt: Date }, now: Date): boolean =>
  invite.expiresAt.getTime() > now.getTime();
