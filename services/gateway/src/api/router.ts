import type { Query } from '../wire/query';
import type { Call } from './call';
import type { Reply } from '../wire/respond';
import type { AccessLevel } from '../authz/access';
import type { OperationScope } from '../authz/scopes';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteOptions {
  /** Project-scoped routes (`P...`): the minimum access on `:projectId`, as in the spec's Access column. */
  access?: AccessLevel;
  /** What the caller's key must be allowed (authz/scopes.ts); every route that takes a key has one. */
  scope?: OperationScope;
  /** Creates or joins a project: refused to a key limited to some projects, which would reach a new one. */
  reachesNewProject?: boolean;
  /** Works without an API key: sign-up, and the operator's admin routes (which check their own token). */
  public?: boolean;
  /**
   * A read of the project's board (boards' data and user references, nothing else, not the clock): its rendered
   * answer may be served from the replica's response cache while the board's version is unchanged, for the
   * queries this accepts.
   */
  cached?: (query: Query) => boolean;
  /** Honours `Idempotency-Key` (every POST, and story updates, which include moves): see edge/idempotent.ts. */
  idempotencyKey?: boolean;
  /** The body streams through to a service unread (uploads), so an Idempotency-Key digests it on the way. */
  streamsBody?: boolean;
}

export interface Route extends RouteOptions {
  method: Method;
  /**
   * `/api/v1/projects/:projectId/stories/:storyId`: `:name` matches a non-negative integer (anything else is
   * no match, hence 404); `:name(text)` matches any segment (tag names).
   */
  pattern: string;
  handler: (call: Call) => Promise<Reply>;
}

export const route = (
  method: Method,
  pattern: string,
  options: RouteOptions,
  handler: Route['handler'],
): Route => ({
  method,
  pattern,
  handler,
  ...options,
});

type Segment = { literal: string } | { param: string; text: boolean };

interface CompiledRoute {
  route: Route;
  segments: Segment[];
}

export type RouteParams = Record<string, number | string>;

export type RouteMatch =
  | { kind: 'found'; route: Route; params: RouteParams }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/** Matches normalised paths against the route table; knows every method of a path for 405's `Allow`. */
export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: Route[]) {
    this.compiled = routes.map((route) => ({ route, segments: compile(route.pattern) }));
  }

  /** HEAD is served by the GET route. */
  match(method: string, segments: string[]): RouteMatch {
    const wanted = method === 'HEAD' ? 'GET' : method;
    const candidates: Array<{ route: Route; params: RouteParams }> = [];
    for (const c of this.compiled) {
      const params = matchSegments(c.segments, segments);
      if (params) candidates.push({ route: c.route, params });
    }
    if (candidates.length === 0) return { kind: 'not-found' };
    const hit = candidates.find((c) => c.route.method === wanted);
    if (hit) return { kind: 'found', ...hit };
    return { kind: 'method-not-allowed', allow: allowedMethods(candidates.map((c) => c.route.method)) };
  }
}

export function allowedMethods(methods: string[]): string[] {
  const set = new Set(methods);
  if (set.has('GET')) set.add('HEAD');
  set.add('OPTIONS');
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'];
  return order.filter((m) => set.has(m));
}

function compile(pattern: string): Segment[] {
  return pattern
    .split('/')
    .filter(Boolean)
    .map((s) => {
      const param = /^:(\w+)(\(text\))?$/.exec(s);
      return param ? { param: param[1] as string, text: Boolean(param[2]) } : { literal: s.toLowerCase() };
    });
}

const INTEGER = /^\d{1,15}$/;

function matchSegments(pattern: Segment[], segments: string[]): RouteParams | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: RouteParams = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as Segment;
    const s = segments[i] as string;
    if ('literal' in p) {
      // Literal segments ignore case, as the original (.NET) routes did.
      if (p.literal !== s.toLowerCase()) return undefined;
    } else if (p.text) {
      params[p.param] = s;
    } else {
      if (!INTEGER.test(s)) return undefined;
      params[p.param] = Number(s);
    }
  }
  return params;
}
