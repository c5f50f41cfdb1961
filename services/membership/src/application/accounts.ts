import { DomainError } from '@flowboard/service-kit';
import {
  assertCollaboratorLimit,
  effectiveLimits,
  parseLimit,
  type AccountDefaults,
  type EffectiveLimits,
} from '../domain/account';
import type { Database, Repositories } from './ports';

export interface AccountView extends EffectiveLimits {
  /** The owner's user id. */
  id: number;
  collaboratorsUsed: number;
}

/** A requested change to one limit: a number sets it, null resets it to the default, undefined keeps it. */
export type LimitChange = number | null | undefined;

const noSuchUser = () => new DomainError('NotFound', 'No such user.');

/**
 * Starts a change that may add collaborators to the account owning a project: locks the account row (after
 * the caller's project lock, the order every path takes) and counts its collaborators. Call the returned
 * check after the change, in the same transaction: it counts again and refuses the change (402) when it adds
 * collaborators beyond the limit. Concurrent changes to any project of the account wait on the lock, so they
 * can never overshoot together.
 */
export async function beginCollaboratorChange(
  tx: Repositories,
  ownerId: number,
  defaults: AccountDefaults,
): Promise<() => Promise<void>> {
  const overrides = await tx.accounts.lock(ownerId);
  if (!overrides) throw new DomainError('Internal', `The owner ${ownerId} of a project does not exist`);
  const { collaboratorLimit } = effectiveLimits(overrides, defaults);
  // No limit: nothing to count, nothing to check (the lock is still taken, keeping one lock order).
  if (collaboratorLimit === undefined) return async () => undefined;
  const before = await tx.accounts.countCollaborators(ownerId);
  return async () => {
    const after = await tx.accounts.countCollaborators(ownerId);
    if (after <= before || after <= collaboratorLimit) return;
    const owner = await tx.users.findById(ownerId);
    assertCollaboratorLimit(collaboratorLimit, before, after, owner?.userName ?? `user ${ownerId}`);
  };
}

/** Accounts (one per user) and their limits: the files quota, `GET /me/account`, the operator's PUT. */
export function createAccountUseCases(deps: { db: Database; defaults: AccountDefaults }) {
  const { db, defaults } = deps;

  const view = async (repos: Repositories, userId: number): Promise<AccountView> => {
    const overrides = await repos.accounts.find(userId);
    if (!overrides) throw noSuchUser();
    return {
      id: userId,
      ...effectiveLimits(overrides, defaults),
      collaboratorsUsed: await repos.accounts.countCollaborators(userId),
    };
  };

  return {
    /** The account a project belongs to (its owner's) and that account's storage limit. */
    async getProjectAccount(projectId: number): Promise<{ accountId: number; storageLimitBytes: number }> {
      const project = projectId > 0 ? await db.repos.projects.findById(projectId) : undefined;
      if (!project) throw new DomainError('NotFound', 'Project not found.');
      const overrides = await db.repos.accounts.find(project.ownerId);
      if (!overrides) throw noSuchUser();
      return {
        accountId: project.ownerId,
        storageLimitBytes: effectiveLimits(overrides, defaults).storageLimitBytes,
      };
    },

    /** The caller's own account. */
    get(callerId: number): Promise<AccountView> {
      return view(db.repos, callerId);
    },

    /**
     * The operator's change. Lowering a limit below the current use is allowed: nothing is removed, but
     * further additions are refused until the use is under the limit again.
     */
    async update(
      userId: number,
      changes: { collaboratorLimit: LimitChange; storageLimitBytes: LimitChange },
    ): Promise<AccountView> {
      const checked = {
        collaboratorLimit:
          typeof changes.collaboratorLimit === 'number'
            ? parseLimit('collaboratorLimit', changes.collaboratorLimit)
            : changes.collaboratorLimit,
        storageLimitBytes:
          typeof changes.storageLimitBytes === 'number'
            ? parseLimit('storageLimitBytes', changes.storageLimitBytes)
            : changes.storageLimitBytes,
      };
      return db.transaction(async (tx) => {
        if (!(userId > 0 && (await tx.accounts.update(userId, checked)))) throw noSuchUser();
        return view(tx, userId);
      });
    },
  };
}
