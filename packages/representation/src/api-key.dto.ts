import type { membership } from '@flowboard/proto';
import type { Dto } from './dto';

/**
 * `{id, createTime, enabled, hint}` (docs/compat.md §6); the full `key` only in the create response, last.
 */
export const apiKeyDto = (key: membership.ApiKey__Output, fullKey?: string): Dto => ({
  id: key.id,
  createTime: key.create_time,
  enabled: key.enabled,
  hint: key.hint,
  key: fullKey,
});
