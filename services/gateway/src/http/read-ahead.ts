import type { RequestHandler } from 'express';
import { apiKeyHash, type ApiKeyAuthenticator } from '../authz/api-keys';
import type { CacheEpoch } from '../authz/cache-epoch';
import type { BoardVersions } from '../caching/board-versions';
import { cacheableBoardRead } from './board-cache';
import { extractApiKey } from './credentials';
import type { RateLimits } from './rate-limit';
import { stateOf } from './state';

/**
 * Starts, without waiting, the Redis reads a request needs before its handler: the cache epoch (may this
 * replica's cached keys, access decisions and users be used?) and, for a key this replica authenticated
 * lately, its rate-limit count. The address gate, right after, issues its read in the same tick, and ioredis's
 * auto-pipelining writes all of them at once: one round trip instead of one per step. Authentication and the
 * key limit await what was started here. For a read the response cache may answer, the board's version goes
 * out in the same write.
 */
export function readAhead(
  epoch: CacheEpoch,
  authenticator: ApiKeyAuthenticator,
  rateLimits: RateLimits,
  boardVersions: BoardVersions,
): RequestHandler {
  return (req, _res, next) => {
    const state = stateOf(req);
    state.cacheEpochRead = epoch.refresh();
    const board = cacheableBoardRead(req.method, state);
    if (board !== undefined) state.boardRead = { projectId: board, version: boardVersions.peek(board) };
    const match = state.match;
    if (match?.kind === 'found' && !match.route.public) {
      const key = extractApiKey(req.headers, state.query);
      if (key !== undefined) {
        const keyHash = apiKeyHash(key);
        state.apiKeyHash = keyHash;
        // Only for a key that was valid here lately: unknown keys must not make counters before they are checked.
        if (authenticator.recognizes(keyHash)) state.keySpend = rateLimits.spendAhead(keyHash);
      }
    }
    next();
  };
}
