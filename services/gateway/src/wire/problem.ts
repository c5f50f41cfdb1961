import {
  DomainError,
  ERROR_TABLE,
  httpProblemFor,
  isDomainError,
  type DomainErrorOptions,
  type ErrorKind,
} from '@flowboard/service-kit';
import { type Dto, toJson } from '@flowboard/representation';
import { toXml } from './xml';
import type { Format } from './negotiate';

/** A DomainError that needs response headers of its own (`Allow` on 405, `Connection: close` on 413). */
export class HttpProblem extends DomainError {
  constructor(
    kind: ErrorKind,
    message: string,
    readonly headers: Readonly<Record<string, string>>,
    options: DomainErrorOptions = {},
  ) {
    super(kind, message, options);
  }
}

/**
 * A problem with a status the error table has no kind for (410 Gone: the change stream's history is no longer
 * retained): its own status, type slug and title. Its `kind` is what the rest of the gateway sees (logging, a 401's
 * or 503's headers): a client error's by default.
 */
export class StatusProblem extends HttpProblem {
  constructor(
    readonly status: number,
    readonly slug: string,
    readonly title: string,
    message: string,
    headers: Readonly<Record<string, string>> = {},
    kind: ErrorKind = 'FailedPrecondition',
    /** Members of its own beside the standard ones (RFC 9457 §3.2), e.g. the `scope` a key lacks. */
    readonly extensions: Readonly<Record<string, string>> = {},
  ) {
    super(kind, message, headers);
  }
}

/**
 * `Retry-After` of a 503 when the error doesn't say: a dependency that answered UNAVAILABLE itself (its database
 * unreachable), Redis down for an Idempotency-Key request. Errors of a breaker refusing (DependencyUnavailableError)
 * carry their own: until its next probe, or the end of its open period.
 */
const DEFAULT_RETRY_AFTER_SECONDS = 2;

const retryAfterOf = (error: DomainError): number => {
  const own = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof own === 'number' && own > 0 ? Math.ceil(own) : DEFAULT_RETRY_AFTER_SECONDS;
};

export const PROBLEM_JSON = 'application/problem+json; charset=utf-8';
export const PROBLEM_XML = 'application/xml; charset=utf-8';
export const WWW_AUTHENTICATE = 'Bearer realm="flowboard"';

/** Anything thrown → the DomainError to answer with; unknown errors become a generic 500. */
export const asDomainError = (error: unknown): DomainError =>
  isDomainError(error) ? error : new DomainError('Internal', 'Internal error', { cause: error });

/**
 * The problem body (docs/compat.md §3.4): RFC 9457 fields plus `requestId`; `detail` is never empty, and an
 * internal error's details stay in the log.
 */
export function problemDto(error: DomainError, requestId: string): Dto {
  const { status, slug, title } = error instanceof StatusProblem ? error : httpProblemFor(error);
  return {
    type: `urn:flowboard:problem:${slug}`,
    title,
    status,
    detail: error.kind === 'Internal' ? title : error.message || title,
    requestId,
    ...(error instanceof StatusProblem ? error.extensions : {}),
  };
}

export interface RenderedProblem {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** JSON as `application/problem+json`; XML as `<error>` with alphabetical children. */
export function renderProblem(error: DomainError, requestId: string, format: Format): RenderedProblem {
  const dto = problemDto(error, requestId);
  const headers: Record<string, string> = {
    'Content-Type': format === 'xml' ? PROBLEM_XML : PROBLEM_JSON,
    ...(error instanceof HttpProblem ? error.headers : {}),
  };
  if (ERROR_TABLE[error.kind].http === 401) headers['WWW-Authenticate'] = WWW_AUTHENTICATE;
  if (ERROR_TABLE[error.kind].http === 503) headers['Retry-After'] ??= String(retryAfterOf(error));
  return {
    status: dto.status as number,
    headers,
    body: format === 'xml' ? toXml('error', dto) : toJson(dto),
  };
}
