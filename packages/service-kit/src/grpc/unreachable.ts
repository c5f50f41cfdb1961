import { DomainError, isDomainError } from '../errors';

/** Node's socket errors: the peer refused, dropped or never answered the connection. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
]);

/**
 * PostgreSQL SQLSTATEs that mean "the database cannot serve now", not "this request is wrong": connection exceptions
 * (class 08), administrator/crash shutdown and "cannot connect now" (57P01-03), too many connections (53300), and a
 * statement timeout (57014, the server too slow to answer within our bound).
 */
const isUnavailableSqlState = (code: string): boolean =>
  code.startsWith('08') || ['57P01', '57P02', '57P03', '53300', '57014'].includes(code);

/**
 * A transaction PostgreSQL ended to let a concurrent one through (deadlock_detected, serialization_failure): nothing
 * was written, and the request may simply be sent again, which is what 503 tells a client.
 */
const isConflictSqlState = (code: string): boolean => code === '40P01' || code === '40001';

/** What node-postgres says when its own connection attempt times out or the server closes the socket. */
const PG_CLIENT_MESSAGES = /timeout exceeded when trying to connect|Connection terminated/i;

/**
 * A backing store (PostgreSQL, the object store) out of reach, or a transaction it ended to break a deadlock,
 * becomes `Unavailable` (gRPC UNAVAILABLE, HTTP 503, retryable) instead of a generic INTERNAL that reads as a bug. Every other error is returned as it is: domain
 * errors keep their kind, and anything else stays INTERNAL with its details in the log only.
 */
export function unavailableIfUnreachable(error: unknown): unknown {
  if (isDomainError(error)) return error;
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (isConflictSqlState(code))
    return new DomainError(
      'Unavailable',
      'A concurrent change held what this request needed; nothing was written',
      {
        cause: error,
      },
    );
  const unreachable =
    SOCKET_CODES.has(code) || isUnavailableSqlState(code) || PG_CLIENT_MESSAGES.test(message);
  return unreachable
    ? new DomainError('Unavailable', 'A backing service is unavailable', { cause: error })
    : error;
}
