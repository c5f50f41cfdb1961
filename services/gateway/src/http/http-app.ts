import express, { type Express } from 'express';
import type { Logger, MetricsRegistry } from '@flowboard/service-kit';
import type { ApiKeyAuthenticator } from '../authz/api-keys';
import type { CacheEpoch } from '../authz/cache-epoch';
import type { ProjectAccessResolver } from '../authz/project-access';
import type { Readiness } from '../readiness';
import { authenticate } from './authenticate';
import type { BoardCache } from './board-cache';
import { authorize } from './authorize';
import { compress } from './compress';
import { cors, preflight } from './cors';
import { dispatch } from './dispatch';
import { docs } from './docs';
import { errorHandler } from './errors';
import { health } from './health';
import { httpObserver } from './observe';
import { requestContext } from './request-context';
import type { Router } from './router';
import { matchRoute, rejectUnrouted } from './routing';
import { negotiate, normalizePath } from './target';
import { readAhead } from './read-ahead';
import type { RateLimits } from './rate-limit';

export interface HttpAppDeps {
  logger: Logger;
  router: Router;
  authenticator: ApiKeyAuthenticator;
  access: ProjectAccessResolver;
  cacheEpoch: CacheEpoch;
  /** Rendered board reads, and the versions that keep them exact. */
  boardCache: BoardCache;
  readiness: Readiness;
  bodyLimit: number;
  rateLimits: RateLimits;
  /** Express `trust proxy`: which peers may name the client address (X-Forwarded-For). */
  trustProxy: boolean | number | string;
  /** Request counts and latencies by route go here; spans are made either way. */
  metrics?: MetricsRegistry;
}

/**
 * The request path (design.md): context → compression → CORS → path → health → docs → format → route → preflight →
 * Redis reads started (cache epoch, key count, board version) → address limit (429) → 401 → key limit (429) → 404/405 →
 * project access (404/403) → cached answer, or handler (sub-resource 404, then body 413/400) → reply; one error
 * middleware.
 */
export function createHttpApp(deps: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxy);
  app.use(requestContext(deps.logger, httpObserver(deps.metrics)));
  app.use(compress());
  app.use(cors());
  app.use(normalizePath());
  app.use(health(deps.readiness));
  app.use(docs()); // the OpenAPI document and /docs: public, outside the route table
  app.use(negotiate());
  app.use(matchRoute(deps.router));
  app.use(preflight());
  app.use(readAhead(deps.cacheEpoch, deps.authenticator, deps.rateLimits, deps.boardCache.versions));
  app.use(deps.rateLimits.addressGate);
  app.use(authenticate(deps.authenticator));
  app.use(deps.rateLimits.countFailedAuthentication);
  app.use(deps.rateLimits.perKey);
  app.use(rejectUnrouted());
  app.use(authorize(deps.access));
  app.use(dispatch(deps.bodyLimit, deps.boardCache));
  app.use(errorHandler(deps.logger));
  return app;
}
