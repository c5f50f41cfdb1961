import { apiKeyHash } from '../authz/credentials';
import { FULL_SCOPE, SCOPE_GROUPS, type KeyScope, type ScopeGroup } from '../authz/scopes';
import { answerJson, type ApiAnswer, type ApiTransport } from './api-transport';

/**
 * Who is calling through MCP: what the key may do (which tools it is shown) and who it is (for the derived
 * Idempotency-Keys), both asked of the API itself (`GET /me/apikeys/current`) with the caller's key. That one call
 * is also the authentication: a missing, unknown, disabled or expired key is refused there, 401, like any request.
 */
export interface McpCaller {
  api: ApiTransport;
  scope: KeyScope;
  /** Stable per API key, never the key itself. */
  identity: string;
}

export const CURRENT_KEY_PATH = '/api/v1/me/apikeys/current';

/** The caller, or the API's refusal (401, 429, 503...) to hand back as it is. */
export async function identifyCaller(
  api: ApiTransport,
  rawKey: string | undefined,
): Promise<{ caller: McpCaller } | { refused: ApiAnswer }> {
  const answer = await api.send({ method: 'GET', path: CURRENT_KEY_PATH });
  // A gateway from before scoped keys has no such route (404 comes only after the key was accepted): its keys can
  // do all their users can.
  if (answer.status === 404) return { caller: { api, scope: FULL_SCOPE, identity: unnamedKey(rawKey) } };
  if (answer.status !== 200) return { refused: answer };
  const key = answerJson(answer) as CurrentKey | undefined;
  if (!key || typeof key !== 'object') return { refused: answer };
  return {
    caller: {
      api,
      scope: scopeOf(key),
      identity: typeof key.id === 'number' ? `key:${key.id}` : unnamedKey(rawKey),
    },
  };
}

/** What `GET /me/apikeys/current` answers that matters here. */
interface CurrentKey {
  id?: number;
  access?: 'read' | 'readwrite';
  projects?: number[];
  groups?: string[];
}

export function scopeOf(key: CurrentKey): KeyScope {
  const groups = key.groups?.filter((g): g is ScopeGroup => (SCOPE_GROUPS as readonly string[]).includes(g));
  return {
    // Anything but an explicit read-write is read-only: a key is never shown more than it may do.
    write: key.access === 'readwrite',
    ...(key.projects ? { projects: key.projects } : {}),
    ...(groups ? { groups } : {}),
  };
}

const unnamedKey = (rawKey: string | undefined): string => `key-hash:${apiKeyHash(rawKey ?? '')}`;
