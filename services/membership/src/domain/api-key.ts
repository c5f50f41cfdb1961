import { DomainError } from '@flowboard/service-kit';

/**
 * What a key may do beyond its user (README "Scoped API keys"): membership stores and checks the shape; the
 * gateway owns the vocabulary of groups (its operations declare them) and enforces the lot on every request.
 * Absent limits mean none, which is what every key made before scopes existed has.
 */
export interface ApiKeyScope {
  name: string;
  expiresAt?: Date;
  readOnly: boolean;
  projectIds?: number[];
  groups?: string[];
}

export const MAX_KEY_NAME_LENGTH = 100;
export const MAX_KEY_PROJECTS = 100;
export const MAX_KEY_GROUPS = 10;
const GROUP_NAME = /^[a-z][a-z0-9-]{0,29}$/;

const invalid = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-field' });

export interface ApiKeyScopeInput {
  name: string;
  /** RFC 3339; "" = never. */
  expireTime: string;
  readOnly: boolean;
  projectIds: number[];
  groups: string[];
}

/** Checks a new key's scope; `now` is the moment it is made (an expiry must lie after it). */
export function parseApiKeyScope(input: ApiKeyScopeInput, now: Date): ApiKeyScope {
  const name = input.name.trim();
  if (name.length > MAX_KEY_NAME_LENGTH) {
    throw invalid(`'name' must be at most ${MAX_KEY_NAME_LENGTH} characters.`);
  }
  let expiresAt: Date | undefined;
  if (input.expireTime) {
    // Like every timestamp of the API, one without a zone is UTC (docs/compat.md §1.5).
    const zoned = /(?:Z|[+-]\d{2}:\d{2})$/i.test(input.expireTime)
      ? input.expireTime
      : `${input.expireTime}Z`;
    expiresAt = new Date(zoned);
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(input.expireTime) || Number.isNaN(expiresAt.getTime())) {
      throw invalid("'expiresAt' must be a date and time (RFC 3339).");
    }
    if (expiresAt.getTime() <= now.getTime()) throw invalid("'expiresAt' must be in the future.");
  }
  const projectIds = [...new Set(input.projectIds)];
  if (projectIds.some((id) => !Number.isSafeInteger(id) || id <= 0)) {
    throw invalid("'projects' must be project ids.");
  }
  if (projectIds.length > MAX_KEY_PROJECTS) {
    throw invalid(`'projects' may name at most ${MAX_KEY_PROJECTS} projects.`);
  }
  const groups = [...new Set(input.groups)];
  if (groups.length > MAX_KEY_GROUPS || groups.some((g) => !GROUP_NAME.test(g))) {
    throw invalid("'groups' must name groups of operations.");
  }
  return {
    name,
    ...(expiresAt ? { expiresAt } : {}),
    readOnly: input.readOnly,
    ...(projectIds.length ? { projectIds: projectIds.sort((a, b) => a - b) } : {}),
    ...(groups.length ? { groups: groups.sort() } : {}),
  };
}

/** Whether the key carries a scope: a gateway that does not enforce scopes must not be handed it. */
export const isScoped = (scope: Omit<ApiKeyScope, 'name' | 'expiresAt'>): boolean =>
  scope.readOnly || scope.projectIds !== undefined || scope.groups !== undefined;

/**
 * Whether the key has any limit a membership older than scoped keys would not keep (a scope, or an expiry): such a
 * key is stored where that release finds none (0006_scoped_api_keys.sql), so a rollback refuses it.
 */
export const hasLimits = (scope: Omit<ApiKeyScope, 'name'>): boolean =>
  isScoped(scope) || scope.expiresAt !== undefined;
