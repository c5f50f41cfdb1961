import { requirePositiveId } from '../domain/attachment';
import type { QuotaStore, StorageUsage } from './ports';

export type GetStorageUsage = (accountId: number) => Promise<StorageUsage>;

/** An account's stored and reserved bytes; an account that never uploaded uses nothing. */
export const makeGetStorageUsage =
  (quota: QuotaStore): GetStorageUsage =>
  (accountId) =>
    quota.usage(requirePositiveId('account_id', accountId));
