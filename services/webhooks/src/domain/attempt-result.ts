/** The outcome of one HTTP attempt, as the delivery log keeps it. */
export interface AttemptResult {
  ok: boolean;
  /** The receiver's status; 0 when none came back (refused target, connection error, timeout). */
  statusCode: number;
  latencyMs: number;
  /** Why it failed; '' after a success. */
  error: string;
}

/** Stored error texts are cut to this many characters. */
export const MAX_ERROR_LENGTH = 1000;

export const truncateError = (text: string): string =>
  text.length <= MAX_ERROR_LENGTH ? text : `${text.slice(0, MAX_ERROR_LENGTH - 1)}…`;

/** 2xx succeeds; a redirect is a failure (never followed); anything else fails with the status and the answer's start. */
export function resultFromResponse(statusCode: number, body: string, latencyMs: number): AttemptResult {
  if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode, latencyMs, error: '' };
  const snippet = body.replace(/\s+/g, ' ').trim();
  const error =
    statusCode >= 300 && statusCode < 400
      ? `HTTP ${statusCode}: redirects are not followed`
      : `HTTP ${statusCode}${snippet ? `: ${snippet}` : ''}`;
  return { ok: false, statusCode, latencyMs, error: truncateError(error) };
}
