import express, { type Express } from 'express';
import type { Logger } from '@flowboard/service-kit';
import type { ApiKeyAuthenticator } from '../authz/api-keys';
import type { ProjectAccessResolver } from '../authz/project-access';
import type { Readiness } from '../readiness';
import { authenticate } from './authenticate';
import { authorize } from './authorize';
import { cors } from './cors';
import { dispatch } from './dispatch';
import { errorHandler } from './errors';
import { health } from './health';
import { requestContext } from './request-context';
import type { Router } from './router';
import { matchRoute, rejectUnrouted } from './routing';
import { negotiate, normalizePath } from './target';

export interface HttpAppDeps {
  logger: Logger;
  router: Router;
  authenticator: ApiKeyAuthenticator;
  access: ProjectAccessResolver;
  readiness: Readiness;
  bodyLimit: number;
}

/**
 * The request path (design.md): context → CORS/preflight → path → health → format → route → 401 → 404/405 →
 * project access (404/403) → handler (sub-resource 404, then body 413/400) → reply; one error middleware.
 */
export function createHttpApp(deps: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(deps.logger));
  app.use(cors());
  app.use(normalizePath());
  app.use(health(deps.readiness));
  app.use(negotiate());
  app.use(matchRoute(deps.router));
  app.use(authenticate(deps.authenticator));
  app.use(rejectUnrouted());
  app.use(authorize(deps.access));
  app.use(dispatch(deps.bodyLimit));
  app.use(errorHandler(deps.logger));
  return app;
}
