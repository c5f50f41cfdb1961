import type { Request, Response } from 'express';
import { DomainError } from '@flowboard/service-kit';
import type { membership } from '@flowboard/proto';
import type { ProjectAccess } from '../authz/access';
import type { CallerKey } from '../authz/api-keys';
import { parsePaging, type Paging } from '../wire/page';
import { parseBodyText, readBody, type RequestBody } from '../wire/body';
import { expectedVersion } from '../wire/conditional';
import { parseEnrichments, type EnrichmentVocabulary } from '../wire/enrichments';
import type { StreamedBodyDigest } from '../wire/multipart-digest';
import type { Format } from '../wire/negotiate';
import type { Query } from '../wire/query';
import { checkPathAndQuery } from '../wire/text-rule';

/** Everything a route handler may use about its request. */
export interface Call {
  req: Request;
  res: Response;
  format: Format;
  query: Query;
  requestId: string;
  /** An integer path parameter (`:storyId`). */
  id(name: string): number;
  /** A text path parameter (`:tag(text)`). */
  text(name: string): string;
  /** The authenticated caller (every route but sign-up). */
  readonly user: membership.User__Output;
  /** The API key it came with: its id, name and scope (the scope check is done; handlers that list narrow by it). */
  readonly key: CallerKey;
  /** The access check's result (project routes). */
  readonly project: ProjectAccess;
  /**
   * The parsed body, read on first use: handlers check sub-resources first, so a missing story is 404 even when
   * the body is bad (docs/compat.md §3.3 order).
   */
  body(): Promise<RequestBody>;
  /**
   * An Idempotency-Key's watch on a body that streams through (uploads): whatever forwards the body starts it
   * as it starts reading.
   */
  readonly streamedBody?: StreamedBodyDigest;
  /** `with=` for this resource; unknown names → 400. */
  enrichments(vocabulary: EnrichmentVocabulary): ReadonlySet<string>;
  /** `page`/`pageSize`. */
  paging(): Paging;
  /** What a PUT or DELETE's `If-Match` expects of the resource's version: 0 for nothing (wire/conditional.ts). */
  expectedVersion(): number;
}

/** What the pipeline hands the handler step: the matched route and what the steps before it established. */
export interface CallInput {
  /** The matched route's pattern (for messages) and its path parameters. */
  route: { pattern: string; params: Readonly<Record<string, string | number>> };
  format: Format;
  query: Query;
  requestId: string;
  user?: membership.User__Output;
  key?: CallerKey | undefined;
  project?: ProjectAccess;
  /** The body's text when a step before the handler had to read it (an Idempotency-Key's fingerprint). */
  bodyText?: string;
  /** The watch on a body that streams through, when the request has an Idempotency-Key. */
  streamedBody?: StreamedBodyDigest;
}

export function createCall(req: Request, res: Response, input: CallInput, bodyLimit: number): Call {
  const { route, query } = input;
  // Before the handler, so no write ever starts on a request that is then refused for its query.
  checkPathAndQuery(route.params, query);
  let body: Promise<RequestBody> | undefined;
  const { bodyText } = input;
  const parseLater = async (text: string) => parseBodyText(text, req.headers['content-type']);
  const param = (name: string) => {
    const value = route.params[name];
    if (value === undefined) throw new Error(`route ${route.pattern} has no parameter :${name}`);
    return value;
  };
  return {
    req,
    res,
    format: input.format,
    query,
    requestId: input.requestId,
    id: (name) => Number(param(name)),
    text: (name) => String(param(name)),
    get user() {
      if (!input.user) throw new Error(`route ${route.pattern} has no authenticated caller`);
      return input.user;
    },
    get key() {
      if (!input.key) throw new Error(`route ${route.pattern} has no API key`);
      return input.key;
    },
    get project() {
      if (!input.project) throw new Error(`route ${route.pattern} declares no project access`);
      return input.project;
    },
    body: () => (body ??= bodyText === undefined ? readBody(req, bodyLimit) : parseLater(bodyText)),
    ...(input.streamedBody ? { streamedBody: input.streamedBody } : {}),
    enrichments: (vocabulary) => parseEnrichments(query.getAll('with'), vocabulary),
    paging: () =>
      parsePaging(single(query, 'page'), single(query, 'pageSize'), {
        text: single(query, 'cursor'),
        // The list a cursor belongs to: the route and its parameters, whatever the format.
        list: `${route.pattern} ${JSON.stringify(route.params)}`,
        where: query.getAll('where').join(' and '),
      }),
    expectedVersion: () => expectedVersion(req.headers),
  };
}

/** A query argument that may appear once: given twice it is ambiguous, 400 naming it. */
function single(query: Query, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1)
    throw new DomainError('InvalidArgument', `Query argument '${name}' is given more than once.`, {
      problem: 'invalid-parameter',
    });
  return values[0];
}
