import type { AccessLevel } from '../authz/access';
import type { OperationScope, ScopeGroup } from '../authz/scopes';
import type { Call } from './call';
import type { Query } from '../wire/query';
import type { Reply } from '../wire/respond';
import { route, type Method, type Route, type RouteOptions } from './router';

/**
 * One operation of the API, declared once, next to its handler in its resource's module: the router is built from
 * these (method, path, access, cacheability) and so is the OpenAPI document (the rest). Vocabulary as in the spec:
 * `access` is the project level needed, or `key` (any valid API key), `public` (none), `operator` (the operator
 * token, which the handler checks); `with`/`where`/`paged` are the spec's E, F and Pg.
 */
export interface Operation {
  method: Method;
  /**
   * The router's pattern: `:name` matches a non-negative integer, `:name(text)` any segment; the document shows
   * both as `{name}`.
   */
  path: string;
  operationId: string;
  summary: string;
  /** The document's group (openapi/descriptions.ts TAGS). */
  tag: string;
  access: Access;
  /**
   * What a key must be allowed to do this (authz/scopes.ts): the resource's group unless the declaration names
   * another, and a write unless it is a GET. Absent where no key is used (sign-up, the operator's routes).
   */
  scope?: OperationScope;
  /** Creates or joins a project, so a key limited to some projects may not (it would reach another). */
  reachesNewProject?: boolean;
  /** A read of the board the response cache may answer, for the queries this accepts (see router.ts). */
  cached?: (query: Query) => boolean;
  ok: Success;
  with?: VocabularyName;
  where?: FilterSet;
  /** `page`/`pageSize`; implied by a page answer. */
  paged?: boolean;
  /** Pages by `cursor` too (README "Sync: cursors and updatedSince"): the handler honours `paging.cursor`. */
  cursor?: boolean;
  /**
   * A single resource with an ETag (wire/conditional.ts): a GET answers 304 for `If-None-Match`, a PUT or DELETE
   * checks `If-Match` (412).
   */
  conditional?: boolean;
  /**
   * Whether `Idempotency-Key` is honoured (edge/idempotent.ts): by default on every POST; a PUT that is not idempotent in
   * effect (a story move records a milestone) opts in.
   */
  idempotencyKey?: boolean;
  /** A request body schema name. */
  body?: string;
  /** A multipart/form-data body (uploads), which streams through the gateway unread. */
  multipart?: boolean;
  /** Statuses beyond the usual 400/401/403/404 (e.g. 402, 409). */
  errors?: number[];
  description?: string;
  /** A flowboard extension beyond the original API (docs/compat.md §6): labelled as such in the document. */
  addition?: boolean;
  /**
   * Parameters of this operation alone (query arguments and request headers beyond the shared ones), as the
   * OpenAPI document states them (`name`, `in`, `schema`...).
   */
  parameters?: ReadonlyArray<Record<string, unknown>>;
}

export type Access = AccessLevel | 'key' | 'public' | 'operator';

export type Success =
  | { one: string } // a resource (schema name)
  | { page: string } // a page of a resource (item schema name)
  | { stream: string } // an event stream (text/event-stream), or a long-poll document (schema name) in JSON or XML
  | 'empty' // 200, no body
  | 'bytes'; // the stored file

/** The `with=` vocabularies (resources/index.ts ENRICHMENTS has their names); `none` still takes `everything`. */
export type VocabularyName = 'story' | 'project' | 'phase' | 'tag' | 'me' | 'none';
/** The filter property sets (openapi/descriptions.ts FILTERS describes them). */
export type FilterSet = 'story' | 'project' | 'role' | 'phase' | 'user';

type Handler = (call: Call) => Promise<Reply>;

/** An operation (its resource gives the group) and the name of its handler among its resource's handlers. */
export interface Declaration<Name extends string> extends Omit<Operation, 'tag' | 'scope'> {
  handler: Name;
  /** The scope group, where it is not the resource's. */
  group?: ScopeGroup | 'any';
}

/** A resource's operations, and its routes once the handlers have their dependencies. */
export interface Resource<Deps> {
  operations: readonly Operation[];
  routes(deps: Deps): Route[];
}

/**
 * Binds a resource's declarations to its handlers (made once per app from the dependencies); `tag` is the group
 * the document lists them under, `group` the scope group its operations need unless one names another.
 */
export function resourceOperations<Deps, Handlers extends Record<string, Handler>>(
  tag: string,
  group: ScopeGroup | 'any',
  handlers: (deps: Deps) => Handlers,
  declarations: ReadonlyArray<Declaration<keyof Handlers & string>>,
): Resource<Deps> {
  const operations = declarations.map(({ handler: _handler, group: own, ...declared }): Operation => {
    const operation = { ...declared, tag };
    if (declared.access === 'public' || declared.access === 'operator') return operation;
    return { ...operation, scope: { group: own ?? group, write: declared.method !== 'GET' } };
  });
  return {
    operations,
    routes(deps) {
      const made = handlers(deps);
      return declarations.map((d, i) =>
        route(d.method, d.path, routeOptions(operations[i] as Operation), made[d.handler] as Handler),
      );
    },
  };
}

function routeOptions(
  operation: Pick<
    Operation,
    'method' | 'access' | 'scope' | 'reachesNewProject' | 'cached' | 'idempotencyKey' | 'multipart'
  >,
): RouteOptions {
  const options: RouteOptions = {
    ...(operation.scope ? { scope: operation.scope } : {}),
    ...(operation.reachesNewProject ? { reachesNewProject: true } : {}),
    ...(operation.cached ? { cached: operation.cached } : {}),
    ...(takesIdempotencyKey(operation) ? { idempotencyKey: true } : {}),
    ...(operation.multipart ? { streamsBody: true } : {}),
  };
  switch (operation.access) {
    case 'key':
      return options;
    // The operator's routes check their own token, not an API key.
    case 'public':
    case 'operator':
      return { ...options, public: true };
    default:
      return { ...options, access: operation.access };
  }
}

export const takesIdempotencyKey = (operation: Pick<Operation, 'method' | 'idempotencyKey'>): boolean =>
  operation.idempotencyKey ?? operation.method === 'POST';

type Rest<Name extends string> = Omit<Declaration<Name>, 'method' | 'path' | 'operationId' | 'summary'>;
const declare =
  (method: Method) =>
  <Name extends string>(path: string, operationId: string, summary: string, rest: Rest<Name>) => ({
    method,
    path,
    operationId,
    summary,
    ...rest,
  });
export const get = declare('GET');
export const post = declare('POST');
export const put = declare('PUT');
export const del = declare('DELETE');

/** `/api/v1/projects/:projectId/tags/:tag(text)` → `/api/v1/projects/{projectId}/tags/{tag}`. */
export const documentedPath = (pattern: string): string => pattern.replace(/:(\w+)(\(text\))?/g, '{$1}');
