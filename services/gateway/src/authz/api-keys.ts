import { DomainError } from '@flowboard/service-kit';
import type { membership } from '@flowboard/proto';
import type { MembershipClient } from '../clients/membership.client';
import { DecisionCache, type CacheEpoch, type GuardedCache } from '../cache';
import { apiKeyHash } from './credentials';
import type { KeyUseRecorder } from './key-uses';
import type { KeyScope, ScopeGroup } from './scopes';

type User = membership.User__Output;

/** The key a request came with: who it is (for "which key did this") and what it may do. */
export interface CallerKey {
  id: number;
  /** `""` for a key made without one (every key from before scopes). */
  name: string;
  scope: KeyScope;
  /** As the API writes times (UTC, no zone); absent: never. */
  expiresAt?: string;
}

/** What a valid key stands for: its user, and the key itself. */
export interface Authenticated {
  user: User;
  key: CallerKey;
}

/** What the caches hold: membership's answer as it came (JSON in Redis). */
interface KeyRecord {
  user: User;
  apiKey: membership.ApiKey__Output;
}

const KEY_FORMAT = /^[0-9a-f]{32}$/;

const unauthorized = (message: string) => new DomainError('Unauthenticated', message);

/**
 * API key → user and the key's scope (docs/compat.md §3.1, README "Scoped API keys"): a key is 32 hex characters,
 * trimmed and lower-cased; anything else is 401 without asking membership. Hits come from this replica's memory,
 * then Redis (`gateway:apikey:v2:{<sha256(key)>}`: the key itself is never stored), misses from
 * `membership.AuthenticateApiKey`, told that this gateway enforces scopes. Only successes are cached, and an
 * expiry is checked on every request, cached or not, so an expired key is refused from its first second on.
 */
export class ApiKeyAuthenticator {
  private readonly cache: DecisionCache<KeyRecord>;

  constructor(
    private readonly membership: MembershipClient,
    shared: GuardedCache,
    ttlSeconds: number,
    epoch: CacheEpoch,
    private readonly uses?: Pick<KeyUseRecorder, 'note'>,
    private readonly now: () => number = Date.now,
  ) {
    this.cache = new DecisionCache(shared, epoch, ttlSeconds);
  }

  /** Whether this key authenticated here lately: its rate-limit count may then be read ahead of the check. */
  recognizes(keyHash: string): boolean {
    return this.cache.has(keyHash);
  }

  /**
   * The caller must have refreshed the cache epoch during this request (the HTTP chain does, first thing).
   * `keyHash` is `apiKeyHash(rawKey)` when the caller already has it.
   */
  async authenticate(rawKey: string, keyHash?: string): Promise<Authenticated> {
    const key = rawKey.trim().toLowerCase();
    if (!KEY_FORMAT.test(key)) throw unauthorized('The API key is malformed.');
    const hash = keyHash ?? apiKeyHash(key);
    const record = await this.cache.get(hash, keySlot(hash), async () => {
      const { user, api_key } = await this.membership.authenticateApiKey({
        api_key: key,
        enforces_scopes: true,
      });
      if (!user) throw unauthorized('The API key is not valid.');
      // A membership older than scoped keys answers the user alone. It knows only keys without limits: it cannot
      // see the others (membership keeps them where it finds none: docs/design.md "Scoped API keys"), so this key
      // can do all its user can. Its id is unknown (0): its changes name no key, and no last use is recorded.
      return { user, apiKey: api_key ?? unscopedKey(user) };
    });
    if (record.apiKey.expire_time && apiTime(record.apiKey.expire_time) <= this.now()) {
      throw unauthorized('The API key has expired.');
    }
    const callerKey = callerKeyOf(record.apiKey);
    if (callerKey.id > 0) this.uses?.note(callerKey.id);
    return { user: record.user, key: callerKey };
  }

  /**
   * Drops the cached users of these keys (given as sha256 hex, as membership stores them): a deleted key is
   * refused, and a changed user is re-read, on the very next request, on every replica.
   */
  async forget(keyHashes: string[]): Promise<void> {
    // The previous release's entries too, while both run (a rolling upgrade): it caches the user alone.
    await this.cache.invalidate(...keyHashes.flatMap((hash) => [keySlot(hash), previousReleaseSlot(hash)]));
  }
}

/** The record of a key made without limits (read-write on everything, never expiring, never used yet). */
export const unscopedKeyRecord = (
  key: Pick<membership.ApiKey__Output, 'id' | 'create_time' | 'hint'>,
): membership.ApiKey__Output => ({
  ...key,
  enabled: true,
  name: '',
  expire_time: '',
  read_only: false,
  project_ids: [],
  groups: [],
  last_use_time: '',
});

/** As far as a membership older than scoped keys can tell: a key without limits, whose id it does not say. */
const unscopedKey = (user: User) => unscopedKeyRecord({ id: 0, create_time: user.create_time, hint: '' });

/**
 * A time as the API writes it (`YYYY-MM-DDTHH:MM:SS`, UTC without a zone: docs/compat.md §1.5), or one naming its
 * zone, in epoch milliseconds; NaN for anything else.
 */
export const apiTime = (time: string): number =>
  Date.parse(/(?:Z|[+-]\d{2}:\d{2})$/i.test(time) ? time : `${time}Z`);

export function callerKeyOf(apiKey: membership.ApiKey__Output): CallerKey {
  const projects = apiKey.project_ids.map(Number);
  return {
    id: Number(apiKey.id),
    name: apiKey.name,
    ...(apiKey.expire_time ? { expiresAt: apiKey.expire_time } : {}),
    scope: {
      write: !apiKey.read_only,
      ...(projects.length ? { projects } : {}),
      // A group this release does not know is kept: it matches no operation, so it allows nothing more.
      ...(apiKey.groups.length ? { groups: apiKey.groups as ScopeGroup[] } : {}),
    },
  };
}

/** v2: the entry holds the key's record beside its user, which the previous release's entries lack. */
const keySlot = (keyHash: string) => ({
  key: `gateway:apikey:v2:{${keyHash}}`,
  generationKey: `gateway:apikey-generation:v2:{${keyHash}}`,
});

const previousReleaseSlot = (keyHash: string) => ({
  key: `gateway:apikey:{${keyHash}}`,
  generationKey: `gateway:apikey-generation:{${keyHash}}`,
});
