/** Where a key (or address) stands in its current window. */
export interface RateLimitState {
  limit: number;
  /** Requests counted in the window so far, including this one. */
  consumed: number;
  /** Milliseconds until the window ends and the count starts over. */
  msBeforeReset: number;
}

/**
 * The response headers of draft-ietf-httpapi-ratelimit-headers-06 (the three-header form most clients read):
 * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds until the window resets, never 0 while a
 * window is open), plus `RateLimit-Policy` (`<limit>;w=<window seconds>`). Over the limit, `Retry-After` too
 * (docs/compat.md §3.3), equal to the reset.
 */
export function rateLimitHeaders(state: RateLimitState, windowSeconds: number): Record<string, string> {
  const reset = Math.max(1, Math.ceil(state.msBeforeReset / 1000));
  const remaining = Math.max(0, state.limit - state.consumed);
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(remaining),
    'RateLimit-Reset': String(reset),
    'RateLimit-Policy': `${state.limit};w=${windowSeconds}`,
  };
  if (state.consumed > state.limit) headers['Retry-After'] = String(reset);
  return headers;
}
