import type { Logger, MetricsRegistry } from '@flowboard/service-kit';
import { counter, gauge } from '@flowboard/service-kit';
import type Redis from 'ioredis';
import type { MembershipClient } from '../clients/membership.client';
import { BoardVersions } from './board-versions';
import { CacheEpoch } from './epoch';
import { GuardedCache } from './guarded-cache';
import { JsonCache } from './json-cache';
import { PendingInvalidations } from './pending-invalidations';
import { ResponseCache, type CacheOutcome } from './response-cache';
import { UserDirectory } from './user-directory';

/**
 * Everything the gateway caches, behind this one module; the rest of the gateway imports it from here only
 * (`npm run check:imports` holds that). What it keeps, what invalidates it, and why it stays exact across replicas:
 *
 * - **API keys → users, and project access decisions** (`decision-cache.ts` over `guarded-cache.ts`): in each
 *   replica's memory and in Redis, with TTLs (`AUTH_CACHE_TTL_SECONDS`, `ACCESS_CACHE_TTL_SECONDS`). A key or
 *   member change deletes the Redis entry and advances the **cache epoch**.
 * - **User references** (`user-directory.ts`, over `json-cache.ts`): the `{id, name, userName, email}` of users in
 *   responses, memory and Redis, `USER_CACHE_TTL_SECONDS`; `PUT /me` drops the caller's entry and advances the epoch.
 * - **Rendered board reads** (`response-cache.ts`; which requests it answers and under
 *   which key: `edge/board-read.ts`): whole answers of the board's GET routes
 *   declared `cached`, in memory, under the **board's version** (`board-versions.ts`, a counter per project in Redis)
 *   that every other request on the project advances before its answer goes out, whatever its outcome.
 *
 * Exact across replicas, because: (1) every request reads the epoch (`epoch.ts`) before it trusts this replica's
 * memory, and a replica that sees a new epoch empties its memory; (2) a value read before an invalidation is never
 * stored after it: guarded stores (a generation checked inside Redis) and epoch-checked local stores refuse it;
 * (3) a cached board answer is served only under the board version it was rendered under, read fresh in the
 * request's first Redis round trip (`edge/read-ahead.ts`), and only after the request's own access check. While Redis
 * can't be read, nothing is served from memory. (4) An invalidation that can't reach Redis is made again as soon as
 * Redis answers (`pending-invalidations.ts`), so entries it should have dropped are not served after an outage.
 * design.md ("One Redis round trip per request", "Response cache
 * of board reads") has the history and the measurements.
 */
export interface Caches {
  epoch: CacheEpoch;
  /** Store of API-key and access decisions, for `ApiKeyAuthenticator` and `ProjectAccessResolver` (authz/). */
  decisions: GuardedCache;
  users: UserDirectory;
  board: BoardCache;
  /** Invalidations that could not reach Redis; `flush()` when it answers again. */
  pending: PendingInvalidations;
}

/** The response cache of board reads and the versions that keep it exact. */
export interface BoardCache {
  versions: BoardVersions;
  responses: ResponseCache;
}

export interface CacheSettings {
  userTtlSeconds: number;
  /** The response cache's budget (0 turns it off) and entries' lifetime. */
  responseCacheBytes: number;
  responseCacheTtlMs: number;
}

export function createCaches(
  redis: Redis,
  membership: MembershipClient,
  settings: CacheSettings,
  metrics: MetricsRegistry,
  logger: Logger,
): Caches {
  const pending = new PendingInvalidations(logger);
  const epoch = new CacheEpoch(redis, logger, pending);
  return {
    epoch,
    decisions: new GuardedCache(redis, logger, pending),
    users: new UserDirectory(
      membership,
      new JsonCache(redis, logger, pending),
      settings.userTtlSeconds,
      epoch,
    ),
    board: {
      versions: new BoardVersions(redis, logger, pending),
      responses: observedResponseCache(epoch, settings, metrics),
    },
    pending,
  };
}

/**
 * The board read cache, with `flowboard_response_cache_lookups_total{outcome}` (its hit rate) and
 * `flowboard_response_cache_bytes` (what it holds, against RESPONSE_CACHE_MB).
 */
function observedResponseCache(epoch: CacheEpoch, settings: CacheSettings, metrics: MetricsRegistry) {
  const lookups = counter(metrics, {
    name: 'flowboard_response_cache_lookups_total',
    help: 'Board reads by how the response cache answered: hit, shared (a render under way), miss, bypass',
    labelNames: ['outcome'],
  });
  const responses = new ResponseCache(
    epoch,
    { maxBytes: settings.responseCacheBytes, ttlMs: settings.responseCacheTtlMs },
    (outcome: CacheOutcome) => lookups.inc({ outcome }),
  );
  gauge(metrics, {
    name: 'flowboard_response_cache_bytes',
    help: 'Bytes of rendered board answers held in this replica (UTF-16, compressed copies not counted)',
    collect() {
      this.set(responses.size);
    },
  });
  return responses;
}

export type { BoardVersions } from './board-versions';
export { DecisionCache } from './decision-cache';
export type { PendingInvalidations } from './pending-invalidations';
export { CacheEpoch, LocalCache } from './epoch';
export { GuardedCache, type CacheSlot } from './guarded-cache';
export type { ResponseCache } from './response-cache';
export { UserDirectory } from './user-directory';
