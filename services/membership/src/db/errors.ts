import { DomainError, isDomainError } from '@flowboard/service-kit';

/**
 * Turns "the database is unreachable" into an Unavailable domain error (503, retryable), so a database blip is
 * not reported as a bug. Every other non-domain error stays as it is and becomes a generic INTERNAL at the gRPC
 * edge: SQL and its messages never reach a client.
 */
export function translateInfrastructureError(error: unknown): unknown {
  if (isDomainError(error)) return error;
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  const unavailable =
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE'].includes(code) ||
    code.startsWith('08') || // connection exceptions
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03' || // admin/crash shutdown, cannot connect now
    code === '53300' || // too many connections
    code === '57014' || // statement timeout
    /timeout exceeded when trying to connect|Connection terminated/i.test(message);
  return unavailable
    ? new DomainError('Unavailable', 'The database is unavailable', { cause: error })
    : error;
}
