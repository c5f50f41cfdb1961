import express, { type Express } from 'express';
import type { Logger, MetricsRegistry } from '@flowboard/service-kit';
import type { Readiness } from '../readiness';
import { boardPage } from './board-page';
import { compress } from './compress';
import { cors } from './cors';
import { docs } from './docs';
import { errorHandler } from './errors';
import { health } from './health';
import { httpObserver } from './observe';
import { apiPipeline, type PipelineDeps } from './pipeline';
import { requestContext } from './request-context';
import { mcpEndpoint } from '../mcp/endpoint';
import type { Router } from '../api/router';

export interface HttpAppDeps extends PipelineDeps {
  logger: Logger;
  router: Router;
  readiness: Readiness;
  /** Express `trust proxy`: which peers may name the client address (X-Forwarded-For). */
  trustProxy: boolean | number | string;
  /** Request counts and latencies by route go here; spans are made either way. */
  metrics?: MetricsRegistry;
}

/**
 * Around the API's pipeline (pipeline.ts), the HTTP concerns every answer shares: the request's record, id, log
 * line and span first; compression and CORS headers; health, the OpenAPI document, the board page and /mcp
 * outside the API; one error handler last.
 */
export function createHttpApp(deps: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxy);
  app.use(requestContext(deps.logger, deps.router, httpObserver(deps.metrics)));
  app.use(compress());
  app.use(cors());
  app.use(health(deps.readiness));
  app.use(docs()); // the OpenAPI document and /docs: public, outside the API's routes
  app.use(boardPage()); // /board: the live board page, also public (the key stays in the browser)
  // /mcp: agents' tools, each call a request into this same app as the caller (mcp/in-process.ts)
  app.use(mcpEndpoint({ app, bodyLimit: deps.bodyLimit }));
  app.use(apiPipeline(deps));
  app.use(errorHandler(deps.logger));
  return app;
}
