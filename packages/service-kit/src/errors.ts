import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

/**
 * Domain errors carry a kind, never a transport status. This file is the one table that maps a kind to its
 * gRPC status (at a service's edge) and to its HTTP status and problem type (at the gateway).
 */
export type ErrorKind =
  | 'InvalidArgument'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'FailedPrecondition'
  | 'PreconditionFailed'
  | 'UnprocessableContent'
  | 'Unauthenticated'
  | 'PermissionDenied'
  | 'RateLimited'
  | 'PlanLimitExceeded'
  | 'PayloadTooLarge'
  | 'UnsupportedMediaType'
  | 'MethodNotAllowed'
  | 'Unavailable'
  | 'DeadlineExceeded'
  | 'Internal';

/** Problem types of the API (`urn:flowboard:problem:<slug>`). */
export type ProblemSlug =
  | 'invalid-body'
  | 'invalid-field'
  | 'invalid-reference'
  | 'invalid-parameter'
  | 'invalid-filter'
  | 'invalid-state'
  | 'precondition-failed'
  | 'idempotency-key-reused'
  | 'idempotent-request-in-progress'
  | 'unknown-enrichment'
  | 'unauthorized'
  | 'plan-limit'
  | 'forbidden'
  | 'not-found'
  | 'method-not-allowed'
  | 'conflict'
  | 'payload-too-large'
  | 'unsupported-media-type'
  | 'rate-limited'
  | 'internal'
  | 'unavailable';

const PROBLEM_SLUGS: ReadonlySet<string> = new Set<ProblemSlug>([
  'invalid-body',
  'invalid-field',
  'invalid-reference',
  'invalid-parameter',
  'invalid-filter',
  'invalid-state',
  'precondition-failed',
  'idempotency-key-reused',
  'idempotent-request-in-progress',
  'unknown-enrichment',
  'unauthorized',
  'plan-limit',
  'forbidden',
  'not-found',
  'method-not-allowed',
  'conflict',
  'payload-too-large',
  'unsupported-media-type',
  'rate-limited',
  'internal',
  'unavailable',
]);

/** Whether a string from another service (metadata, an HTTP error body) names one of the API's problem types. */
export const isProblemSlug = (value: unknown): value is ProblemSlug =>
  typeof value === 'string' && PROBLEM_SLUGS.has(value);

interface ErrorMapping {
  grpc: GrpcStatus;
  /** Distinguishes kinds that share a gRPC code; travels in trailing metadata. */
  reason?: string;
  http: number;
  slug: ProblemSlug;
  title: string;
}

/** The error table. HTTP numbers follow grpc-gateway's mapping, except 402/413, which are selected by reason. */
export const ERROR_TABLE: Readonly<Record<ErrorKind, ErrorMapping>> = {
  InvalidArgument: {
    grpc: GrpcStatus.INVALID_ARGUMENT,
    http: 400,
    slug: 'invalid-field',
    title: 'Invalid request',
  },
  NotFound: { grpc: GrpcStatus.NOT_FOUND, http: 404, slug: 'not-found', title: 'Not found' },
  AlreadyExists: { grpc: GrpcStatus.ALREADY_EXISTS, http: 409, slug: 'conflict', title: 'Conflict' },
  Conflict: { grpc: GrpcStatus.ABORTED, http: 409, slug: 'conflict', title: 'Conflict' },
  FailedPrecondition: {
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 400,
    slug: 'invalid-state',
    title: 'Invalid state',
  },
  // A conditional write (`If-Match`) whose expected version is no longer the resource's: nothing was written.
  PreconditionFailed: {
    grpc: GrpcStatus.FAILED_PRECONDITION,
    reason: 'VERSION_MISMATCH',
    http: 412,
    slug: 'precondition-failed',
    title: 'Precondition failed',
  },
  // Well-formed but unusable as sent, e.g. an Idempotency-Key reused with a different request.
  UnprocessableContent: {
    grpc: GrpcStatus.INVALID_ARGUMENT,
    reason: 'UNPROCESSABLE',
    http: 422,
    slug: 'idempotency-key-reused',
    title: 'Unprocessable content',
  },
  Unauthenticated: {
    grpc: GrpcStatus.UNAUTHENTICATED,
    http: 401,
    slug: 'unauthorized',
    title: 'Unauthorized',
  },
  PermissionDenied: { grpc: GrpcStatus.PERMISSION_DENIED, http: 403, slug: 'forbidden', title: 'Forbidden' },
  RateLimited: {
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    http: 429,
    slug: 'rate-limited',
    title: 'Too many requests',
  },
  PlanLimitExceeded: {
    grpc: GrpcStatus.FAILED_PRECONDITION,
    reason: 'PLAN_LIMIT_EXCEEDED',
    http: 402,
    slug: 'plan-limit',
    title: 'Plan limit exceeded',
  },
  PayloadTooLarge: {
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    reason: 'PAYLOAD_TOO_LARGE',
    http: 413,
    slug: 'payload-too-large',
    title: 'Payload too large',
  },
  // A request body in a content coding the gateway cannot decode (it decodes gzip and deflate).
  UnsupportedMediaType: {
    grpc: GrpcStatus.INVALID_ARGUMENT,
    reason: 'UNSUPPORTED_MEDIA_TYPE',
    http: 415,
    slug: 'unsupported-media-type',
    title: 'Unsupported media type',
  },
  MethodNotAllowed: {
    grpc: GrpcStatus.UNIMPLEMENTED,
    http: 405,
    slug: 'method-not-allowed',
    title: 'Method not allowed',
  },
  Unavailable: { grpc: GrpcStatus.UNAVAILABLE, http: 503, slug: 'unavailable', title: 'Service unavailable' },
  DeadlineExceeded: {
    grpc: GrpcStatus.DEADLINE_EXCEEDED,
    http: 504,
    slug: 'unavailable',
    title: 'Upstream timeout',
  },
  Internal: { grpc: GrpcStatus.INTERNAL, http: 500, slug: 'internal', title: 'Internal error' },
};

export interface DomainErrorOptions {
  /** A finer problem type than the kind's default, e.g. `invalid-filter` for an InvalidArgument. */
  problem?: ProblemSlug;
  cause?: unknown;
}

export class DomainError extends Error {
  readonly kind: ErrorKind;
  readonly problem: ProblemSlug;

  constructor(kind: ErrorKind, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.kind = kind;
    this.problem = options.problem ?? ERROR_TABLE[kind].slug;
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

/** Failures of the system rather than of the request: nothing a caller could have sent differently. */
const SYSTEM_KINDS: ReadonlySet<ErrorKind> = new Set(['Internal', 'Unavailable', 'DeadlineExceeded']);

/**
 * A refusal of what the caller asked (a bad field, a missing story, a stale version...): the answer of one item of
 * a bulk request, where a system failure is the whole request's.
 */
export const isCallersError = (e: unknown): e is DomainError => isDomainError(e) && !SYSTEM_KINDS.has(e.kind);

const REASON_KEY = 'flowboard-error-reason';
const PROBLEM_KEY = 'flowboard-problem';

/** Server edge: a thrown error → the gRPC error to send. Unknown errors become INTERNAL with a generic message. */
export function toGrpcError(error: unknown): Partial<ServiceError> {
  if (!isDomainError(error)) {
    return { code: GrpcStatus.INTERNAL, details: 'Internal error', metadata: new Metadata() };
  }
  const row = ERROR_TABLE[error.kind];
  const metadata = new Metadata();
  if (row.reason) metadata.set(REASON_KEY, row.reason);
  metadata.set(PROBLEM_KEY, error.problem);
  return { code: row.grpc, details: error.message, metadata };
}

/** Client edge: a gRPC error → the DomainError it stands for, so callers handle kinds, never codes. */
export function fromGrpcError(error: unknown): DomainError {
  if (isDomainError(error)) return error;
  const e = error as Partial<ServiceError>;
  if (typeof e?.code !== 'number') return new DomainError('Internal', 'Internal error', { cause: error });
  const reason = e.metadata?.get(REASON_KEY)[0]?.toString();
  const problem = e.metadata?.get(PROBLEM_KEY)[0]?.toString();
  const kind = kindFor(e.code, reason);
  // Messages of internal errors stay in the logs; peers' details of client errors are meant for the client.
  const message =
    kind === 'Internal'
      ? 'Internal error'
      : kind === 'Unavailable'
        ? 'A dependency is unavailable'
        : (e.details ?? '');
  return new DomainError(kind, message, {
    cause: error,
    problem: isProblemSlug(problem) ? problem : undefined,
  });
}

function kindFor(code: GrpcStatus, reason: string | undefined): ErrorKind {
  // A peer that does not have the method is a release from before it, met during a rollout (the caller's service was
  // upgraded first): the operation is unavailable until the peer is upgraded too, not a 405 of the client's.
  if (code === GrpcStatus.UNIMPLEMENTED) return 'Unavailable';
  const entries = Object.entries(ERROR_TABLE) as Array<[ErrorKind, ErrorMapping]>;
  if (reason) {
    const byReason = entries.find(([, row]) => row.reason === reason);
    if (byReason) return byReason[0];
  }
  const byCode = entries.find(([, row]) => row.grpc === code && !row.reason);
  return byCode ? byCode[0] : 'Internal';
}

/** The HTTP face of an error: status, problem type and title. */
export function httpProblemFor(error: DomainError): { status: number; slug: ProblemSlug; title: string } {
  const row = ERROR_TABLE[error.kind];
  return { status: row.http, slug: error.problem, title: row.title };
}
