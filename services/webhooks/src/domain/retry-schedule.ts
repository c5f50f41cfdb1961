/** How failed deliveries are retried (config: RETRY_*). */
export interface RetryPolicy {
  initialMs: number;
  maxMs: number;
  /** Counted from the delivery's first attempt. */
  giveUpAfterMs: number;
}

export type RetryDecision = { retryInMs: number } | 'give-up';

/**
 * After failed attempt `attempt` (1, 2, ...), `elapsedMs` after the delivery's first attempt: the wait before the
 * next one, or give up. Exponential back-off with full jitter (a uniform wait up to initial·2^(attempt−1), capped),
 * so the retries of many deliveries that failed together (a receiver's outage) spread out instead of arriving in
 * waves. The last retry is pulled in to the deadline, so the window is exactly `giveUpAfterMs`; a failure at or
 * past it gives up.
 */
export function nextAttempt(
  policy: RetryPolicy,
  attempt: number,
  elapsedMs: number,
  random: () => number = Math.random,
): RetryDecision {
  if (elapsedMs >= policy.giveUpAfterMs) return 'give-up';
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(Math.max(0, attempt - 1), 40));
  const wait = Math.round(random() * ceiling);
  return { retryInMs: Math.min(wait, policy.giveUpAfterMs - elapsedMs) };
}

/** "24 h", "90 min", "45 s": the give-up window as the disabled reason shows it. */
export function describeDuration(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1_000) return `${Math.round(ms / 1_000)} s`;
  return `${ms} ms`;
}
