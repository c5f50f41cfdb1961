import { describeDuration, nextAttempt, type RetryPolicy } from './retry-schedule';

const DAY = 86_400_000;
const policy: RetryPolicy = { initialMs: 5_000, maxMs: 3_600_000, giveUpAfterMs: DAY };

describe('nextAttempt', () => {
  it('waits up to 5 s after the first failure, doubling per attempt, capped at 1 h (the ceiling at random = 1)', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((attempt) =>
      nextAttempt(policy, attempt, 0, () => 1),
    );
    expect(ceilings).toEqual(
      [5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600].map((s) => ({ retryInMs: s * 1000 })),
    );
  });

  it('draws the wait uniformly below the ceiling (full jitter)', () => {
    expect(nextAttempt(policy, 3, 0, () => 0)).toEqual({ retryInMs: 0 });
    expect(nextAttempt(policy, 3, 0, () => 0.5)).toEqual({ retryInMs: 10_000 });
    const waits = Array.from(
      { length: 200 },
      () => (nextAttempt(policy, 4, 0) as { retryInMs: number }).retryInMs,
    );
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...waits)).toBeLessThanOrEqual(40_000);
    expect(new Set(waits).size).toBeGreaterThan(50);
  });

  it('pulls the last retry in to the deadline, and gives up on a failure at or past it', () => {
    expect(nextAttempt(policy, 30, DAY - 1_000, () => 1)).toEqual({ retryInMs: 1_000 });
    expect(nextAttempt(policy, 31, DAY, () => 1)).toBe('give-up');
    expect(nextAttempt(policy, 31, DAY + 5, () => 0)).toBe('give-up');
  });

  it('retries for a day with the defaults: 34 attempts when every wait is the ceiling', () => {
    let elapsed = 0;
    let attempt = 1;
    for (;;) {
      const decision = nextAttempt(policy, attempt, elapsed, () => 1);
      if (decision === 'give-up') break;
      elapsed += decision.retryInMs;
      attempt++;
    }
    expect(elapsed).toBe(DAY);
    expect(attempt).toBe(34); // 1 + 10 doubling waits (5,115 s) + 23 hourly ones, the last pulled in
  });

  it('never overflows on huge attempt numbers', () => {
    expect(nextAttempt(policy, 10_000, 0, () => 1)).toEqual({ retryInMs: 3_600_000 });
  });
});

describe('describeDuration', () => {
  it.each([
    [86_400_000, '24 h'],
    [5_400_000, '90 min'],
    [45_000, '45 s'],
    [2_500, '3 s'],
    [300, '300 ms'],
  ])('%d ms → %s', (ms, text) => expect(describeDuration(ms)).toBe(text));
});
