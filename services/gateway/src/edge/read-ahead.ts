import type { Request } from 'express';
import { apiKeyHash, extractApiKey } from '../authz/credentials';
import type { RateLimitState } from './rate-limit-headers';
import type { RequestRecord } from './record';
import { cacheableBoardRead } from './board-read';
import type { BoardVersions, CacheEpoch } from '../cache';

/** The Redis reads a request needs before its handler, started at once; the later steps await them. */
export interface ReadAhead {
  /** The cache epoch's read: may this replica's cached keys, access decisions and users be used? */
  cacheEpochRead: Promise<void>;
  /** sha256 of the request's API key, for the key cache and the key's rate limit. */
  keyHash?: string;
  /** The key's rate-limit count, for a key this replica authenticated lately. */
  keySpend?: Promise<RateLimitState | undefined>;
  /** A read the response cache may answer: its project, and the board version's read. */
  boardRead?: { projectId: number; version: Promise<string | undefined> };
}

export interface ReadAheadDeps {
  epoch: CacheEpoch;
  /** Whether this replica authenticated the key lately (ApiKeyAuthenticator). */
  authenticator: { recognizes(keyHash: string): boolean };
  /** Counts a request against a key before it is authenticated (RateLimits). */
  rateLimits: { spendAhead(keyHash: string): Promise<RateLimitState | undefined> };
  boardVersions: BoardVersions;
}

/**
 * Starts, without waiting, the cache epoch's read, the key's rate-limit count and the board version. The address
 * gate, right after, issues its read in the same tick, and ioredis's auto-pipelining writes all of them at once:
 * one round trip instead of one per step. Unknown keys never make counters before they are checked.
 */
export function readAhead(req: Request, record: RequestRecord, deps: ReadAheadDeps): ReadAhead {
  const ahead: ReadAhead = { cacheEpochRead: deps.epoch.refresh() };
  const board = cacheableBoardRead(req.method, record);
  if (board !== undefined) ahead.boardRead = { projectId: board, version: deps.boardVersions.peek(board) };
  if (record.match.kind === 'found' && !record.match.route.public) {
    const key = extractApiKey(req.headers, record.query);
    if (key !== undefined) {
      ahead.keyHash = apiKeyHash(key);
      if (deps.authenticator.recognizes(ahead.keyHash))
        ahead.keySpend = deps.rateLimits.spendAhead(ahead.keyHash);
    }
  }
  return ahead;
}
