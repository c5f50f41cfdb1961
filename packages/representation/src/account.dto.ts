import type { files, membership } from '@flowboard/proto';
import { XML_ONLY_EMPTY, type Dto } from './dto';

/**
 * An account (`GET /me/account`, `PUT /admin/accounts/{userId}`; a flowboard addition): its limits and what
 * is in use. `id` is the owner's user id. No collaborator limit: JSON omits `collaboratorLimit`, XML shows
 * `<collaboratorLimit />`. Storage in use includes uploads in flight (they count against the limit too).
 */
export const accountDto = (
  account: membership.Account__Output,
  storage: files.GetStorageUsageResponse__Output,
): Dto => ({
  id: account.id,
  collaboratorLimit: account.collaborator_limit ?? XML_ONLY_EMPTY,
  collaboratorsUsed: account.collaborators_used,
  storageLimitBytes: account.storage_limit_bytes,
  storageUsedBytes: storage.used_bytes + storage.reserved_bytes,
});
