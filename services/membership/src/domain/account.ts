import { DomainError } from '@flowboard/service-kit';

/**
 * Accounts and their limits. One account per user; it holds the projects the user owns. A limit stored on the
 * account is an operator's override; absent, the configured default applies.
 */

/**
 * The configured defaults (membership config). `collaboratorLimit` undefined: no limit (docs/compat.md §5.7).
 */
export interface AccountDefaults {
  collaboratorLimit: number | undefined;
  storageLimitBytes: number;
}

/** The overrides stored on an account row; null = the default. */
export interface AccountOverrides {
  collaboratorLimit: number | null;
  storageLimitBytes: number | null;
}

export interface EffectiveLimits {
  /** undefined: no limit. */
  collaboratorLimit: number | undefined;
  storageLimitBytes: number;
}

export function effectiveLimits(overrides: AccountOverrides, defaults: AccountDefaults): EffectiveLimits {
  return {
    collaboratorLimit: overrides.collaboratorLimit ?? defaults.collaboratorLimit,
    storageLimitBytes: overrides.storageLimitBytes ?? defaults.storageLimitBytes,
  };
}

/**
 * The collaborator rule, checked after a change inside the transaction that made it: the change is refused
 * (402) when it leaves more collaborators than the limit AND added some. A change that adds nobody (an existing
 * member joining another role, accepting an invite whose address was already counted) always succeeds, even
 * on an account an operator has since put over its limit.
 */
export function assertCollaboratorLimit(
  limit: number | undefined,
  before: number,
  after: number,
  ownerName: string,
): void {
  if (limit === undefined || after <= before || after <= limit) return;
  throw new DomainError(
    'PlanLimitExceeded',
    `This would give the account of ${ownerName} ${after} collaborators; its limit is ${limit}. ` +
      'Collaborators are the people, other than the owner, who are members of or invited to any of its projects.',
  );
}

/** Largest limit accepted: collaborator counts and byte sizes stay exact in a JavaScript number. */
export const MAX_LIMIT = Number.MAX_SAFE_INTEGER;

/** A requested limit: an integer 0 … MAX_LIMIT; anything else is a 400 naming the field. */
export function parseLimit(field: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_LIMIT) {
    throw new DomainError('InvalidArgument', `'${field}' must be a whole number from 0 to ${MAX_LIMIT}.`, {
      problem: 'invalid-field',
    });
  }
  return value;
}
