import type { IncomingMessage } from 'node:http';
import type { membership } from '@flowboard/proto';
import type { RequestContext } from '@flowboard/service-kit';
import type { ProjectAccess } from '../authz/access';
import type { Format } from './negotiate';
import type { RateLimitState } from './rate-limit-headers';
import type { NormalizedTarget } from './normalize-path';
import { Query } from './query';
import type { RouteMatch } from './router';

/** What the middleware chain learns about one request, step by step. */
export interface RequestState {
  context: RequestContext;
  startedAt: number;
  target: NormalizedTarget;
  query: Query;
  /** JSON until negotiation ran, so even the earliest error has a format. */
  format: Format;
  match?: RouteMatch;
  /** The cache epoch's read for this request (readAhead): local cache entries wait for it. */
  cacheEpochRead?: Promise<void>;
  /** sha256 of the request's API key (readAhead), for the key cache and the key's rate limit. */
  apiKeyHash?: string;
  /** The API key's rate-limit count, when readAhead started it. */
  keySpend?: Promise<RateLimitState | undefined>;
  /**
   * A read the response cache may answer (readAhead): its project, and the board version's read, started with
   * the request's other Redis reads.
   */
  boardRead?: { projectId: number; version: Promise<string | undefined> };
  user?: membership.User__Output;
  project?: ProjectAccess;
}

const states = new WeakMap<IncomingMessage, RequestState>();

export function initState(req: IncomingMessage, context: RequestContext): RequestState {
  const state: RequestState = {
    context,
    startedAt: performance.now(),
    target: { segments: [], path: '/', search: '' },
    query: new Query(''),
    format: 'json',
  };
  states.set(req, state);
  return state;
}

export function stateOf(req: IncomingMessage): RequestState {
  const state = states.get(req);
  if (!state) throw new Error('request state missing: requestContext() must run first');
  return state;
}
