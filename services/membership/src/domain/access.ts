/**
 * Access levels and the rule that decides a caller's effective access on a project
 * (docs/compat.md §3.2): the owner gets admin; anyone else gets the highest access among their roles in the
 * project; a member without a role gets none; a non-member gets nothing at all (the project is "not found").
 */
export const ACCESS_LEVELS = ['none', 'read', 'readwrite', 'admin'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export const isAccessLevel = (value: unknown): value is AccessLevel =>
  typeof value === 'string' && (ACCESS_LEVELS as readonly string[]).includes(value);

export const accessRank = (level: AccessLevel): number => ACCESS_LEVELS.indexOf(level);

/** Highest access wins; no level at all is `none`. */
export function highestAccess(levels: Iterable<AccessLevel>): AccessLevel {
  let best: AccessLevel = 'none';
  for (const level of levels) if (accessRank(level) > accessRank(best)) best = level;
  return best;
}

/** True when `actual` is at least `required`. */
export const hasAccess = (actual: AccessLevel, required: AccessLevel): boolean =>
  accessRank(actual) >= accessRank(required);

/** What the database knows about one user and one project. */
export interface MembershipFacts {
  isOwner: boolean;
  /** Added to the project directly (project_members). */
  isProjectMember: boolean;
  /** The access of every role of this project the user belongs to (empty when none). */
  roleAccess: AccessLevel[];
}

/** The effective access, or undefined when the user is no member of the project at all. */
export function effectiveAccess(facts: MembershipFacts): AccessLevel | undefined {
  if (facts.isOwner) return 'admin';
  if (!facts.isProjectMember && facts.roleAccess.length === 0) return undefined;
  return highestAccess(facts.roleAccess);
}
