import type { RequestHandler } from 'express';
import type { ApiKeyAuthenticator } from '../authz/api-keys';
import type { ProjectAccessResolver } from '../authz/project-access';
import { authenticateCaller, authorizeKey, authorizeProject, type Principal } from './caller';
import { answerPreflight } from './cors';
import { dispatch } from './dispatch';
import type { RateLimits } from './rate-limit';
import type { BoardCache, CacheEpoch } from '../cache';
import type { IdempotencyStore } from '../idempotency';
import { idempotentRequest } from './idempotent';
import { readAhead } from './read-ahead';
import { recordOf } from './record';
import { requireRoute } from './routing';

export interface PipelineDeps {
  authenticator: ApiKeyAuthenticator;
  access: ProjectAccessResolver;
  cacheEpoch: CacheEpoch;
  /** Rendered board reads, and the versions that keep them exact. */
  boardCache: BoardCache;
  rateLimits: RateLimits;
  /** Answers of requests sent with an Idempotency-Key. */
  idempotency: IdempotencyStore;
  bodyLimit: number;
}

/**
 * The API's request path, one step after the other, each handing the next what it established:
 *
 *   route (from the request's record) → preflight answered → Redis reads started → address limit (429)
 *   → principal (401) → key limit (429) → route required (404/405) → key's scope (403)
 *   → project access (404/403)
 *   → Idempotency-Key (body 413/400, then replay, 409 or 422; idempotent.ts)
 *   → cached answer, or handler (sub-resource 404, then body 413/400) → reply
 *
 * The order is the contract's (docs/compat.md §3.3): nobody learns which paths exist before authenticating, and a
 * caller over its limit costs nothing more. The Redis reads of the epoch, the key's count, the address's count
 * and the board's version all go out before the first await, so they share one round trip. A thrown error goes
 * to the one error handler (errors.ts), which answers in the request's format.
 */
export function apiPipeline(deps: PipelineDeps): RequestHandler {
  const readAheadDeps = {
    epoch: deps.cacheEpoch,
    authenticator: deps.authenticator,
    rateLimits: deps.rateLimits,
    boardVersions: deps.boardCache.versions,
  };
  return async (req, res) => {
    const record = recordOf(req);
    if (answerPreflight(req, res, record.match)) return;
    const publicRoute = record.match.kind === 'found' && record.match.route.public === true;

    const ahead = readAhead(req, record, readAheadDeps);
    await deps.rateLimits.gateAddress(req, publicRoute);

    let principal: Principal | undefined;
    if (!publicRoute) {
      principal = await authenticateCaller(req, record, ahead, deps.authenticator).catch(
        async (err: unknown) => {
          await deps.rateLimits.countFailedAuthentication(req, err);
          throw err;
        },
      );
      await deps.rateLimits.spendKey(res, principal.keyHash, ahead.keySpend);
    }

    const found = requireRoute(req.method, record.match);
    authorizeKey(found, principal);
    const project = await authorizeProject(deps.access, found, principal);
    const idempotent = await idempotentRequest(
      req,
      res,
      record,
      found,
      principal,
      deps.idempotency,
      deps.bodyLimit,
    );
    if (idempotent === 'replayed') return;
    try {
      await dispatch(
        req,
        res,
        {
          record,
          found,
          principal,
          project,
          boardRead: ahead.boardRead,
          bodyText: idempotent?.bodyText,
          streamedBody: idempotent?.streamedBody,
        },
        deps.bodyLimit,
        deps.boardCache,
      );
    } finally {
      idempotent?.settled();
    }
  };
}
