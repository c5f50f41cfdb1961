import { rateLimitHeaders } from './rate-limit-headers';

describe('rateLimitHeaders', () => {
  it('counts down the remaining requests and names the window in seconds', () => {
    expect(rateLimitHeaders({ limit: 100, consumed: 1, msBeforeReset: 59_001 }, 60)).toEqual({
      'RateLimit-Limit': '100',
      'RateLimit-Remaining': '99',
      'RateLimit-Reset': '60',
      'RateLimit-Policy': '100;w=60',
    });
  });

  it('answers 0 remaining and no Retry-After on the last allowed request', () => {
    const headers = rateLimitHeaders({ limit: 5, consumed: 5, msBeforeReset: 1_500 }, 60);
    expect(headers['RateLimit-Remaining']).toBe('0');
    expect(headers['RateLimit-Reset']).toBe('2');
    expect(headers).not.toHaveProperty('Retry-After');
  });

  it('adds Retry-After (whole seconds, rounded up) once over the limit, never below 1', () => {
    const over = rateLimitHeaders({ limit: 5, consumed: 9, msBeforeReset: 12_001 }, 60);
    expect(over['RateLimit-Remaining']).toBe('0');
    expect(over['Retry-After']).toBe('13');
    expect(over['RateLimit-Reset']).toBe('13');
    const ending = rateLimitHeaders({ limit: 5, consumed: 6, msBeforeReset: 0 }, 60);
    expect(ending['Retry-After']).toBe('1');
    expect(ending['RateLimit-Reset']).toBe('1');
  });
});
