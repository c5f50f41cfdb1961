import type { membership } from '@flowboard/proto';
import type { Dto } from './dto';

/**
 * `{id, name, createTime, enabled, hint, expiresAt, lastUsedTime, access, projects, groups}` (docs/compat.md §6,
 * README "Scoped API keys"): what a key may do, never the key itself; the full `key` only in the create response,
 * last. Left out when unset: `expiresAt` (never expires), `lastUsedTime` (never used), `projects` and `groups`
 * (no limit).
 */
export const apiKeyDto = (key: membership.ApiKey__Output, fullKey?: string): Dto => ({
  id: key.id,
  name: key.name,
  createTime: key.create_time,
  enabled: key.enabled,
  hint: key.hint,
  expiresAt: key.expire_time || undefined,
  lastUsedTime: key.last_use_time || undefined,
  access: key.read_only ? 'read' : 'readwrite',
  projects: key.project_ids.length ? key.project_ids.map(Number) : undefined,
  groups: key.groups.length ? [...key.groups] : undefined,
  key: fullKey,
});
