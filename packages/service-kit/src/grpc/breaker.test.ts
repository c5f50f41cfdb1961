import { DomainError } from '../errors';
import { Breaker, DependencyUnavailableError } from './breaker';

const down = () => Promise.reject(new DomainError('Unavailable', 'connection refused'));
const silent = () => Promise.reject(new DomainError('DeadlineExceeded', 'deadline'));
const notFound = () => Promise.reject(new DomainError('NotFound', 'no such story'));
const ok = () => Promise.resolve('ok');
const isFailure = (e: unknown) =>
  e instanceof DomainError && (e.kind === 'Unavailable' || e.kind === 'DeadlineExceeded');

async function outcome(breaker: Breaker, call: () => Promise<unknown>): Promise<string> {
  try {
    return String(await breaker.run(call, isFailure));
  } catch (e) {
    if (e instanceof DependencyUnavailableError) return 'refused';
    return e instanceof DomainError ? e.kind : 'other';
  }
}

describe('Breaker', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('opens after failuresToOpen consecutive dependency failures, not before', async () => {
    const b = new Breaker({ name: 'boards', failuresToOpen: 3 });
    expect(await outcome(b, down)).toBe('Unavailable');
    expect(await outcome(b, silent)).toBe('DeadlineExceeded');
    expect(b.state()).toBe('closed');
    expect(await outcome(b, down)).toBe('Unavailable');
    expect(b.state()).toBe('open');
    expect(await outcome(b, ok)).toBe('refused');
  });

  it('a single slow call, or failures separated by answers, never opens it', async () => {
    const b = new Breaker({ name: 'boards', failuresToOpen: 3 });
    for (let i = 0; i < 10; i++) {
      expect(await outcome(b, silent)).toBe('DeadlineExceeded');
      expect(await outcome(b, silent)).toBe('DeadlineExceeded');
      // An error the dependency chose is an answer: it proves the dependency is there.
      expect(await outcome(b, i % 2 ? ok : notFound)).toBe(i % 2 ? 'ok' : 'NotFound');
    }
    expect(b.state()).toBe('closed');
  });

  it('refuses with 503 Unavailable and a Retry-After until halfOpenAfterMs, then lets one trial through', async () => {
    const b = new Breaker({ name: 'boards', failuresToOpen: 1, halfOpenAfterMs: 5_000 });
    await outcome(b, down);
    const refused = await b.run(ok, isFailure).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DependencyUnavailableError);
    expect(refused).toMatchObject({ kind: 'Unavailable', dependency: 'boards', retryAfterSeconds: 5 });
    jest.advanceTimersByTime(3_100);
    expect(b.retryAfterSeconds()).toBe(2);
    expect(await outcome(b, ok)).toBe('refused');
    jest.advanceTimersByTime(2_000);
    expect(await outcome(b, ok)).toBe('ok');
    expect(b.state()).toBe('closed');
  });

  it('a failed trial opens it again for another period', async () => {
    const b = new Breaker({ name: 'boards', failuresToOpen: 1, halfOpenAfterMs: 1_000 });
    await outcome(b, down);
    jest.advanceTimersByTime(1_000);
    expect(await outcome(b, silent)).toBe('DeadlineExceeded');
    expect(b.state()).toBe('open');
    expect(await outcome(b, ok)).toBe('refused');
  });

  it('while the trial runs, other calls are refused at once rather than waiting for it', async () => {
    const b = new Breaker({ name: 'boards', failuresToOpen: 1, halfOpenAfterMs: 1_000 });
    await outcome(b, down);
    jest.advanceTimersByTime(1_000);
    let finishTrial!: (v: string) => void;
    const trial = b.run(() => new Promise<string>((resolve) => (finishTrial = resolve)), isFailure);
    expect(b.state()).toBe('half-open');
    expect(await outcome(b, ok)).toBe('refused');
    finishTrial('ok');
    expect(await trial).toBe('ok');
    expect(await outcome(b, ok)).toBe('ok');
  });

  it('probeFailuresToOpen failed probes hold it open; the first good probe closes it', async () => {
    const b = new Breaker({ name: 'webhooks', probeFailuresToOpen: 2, probeIntervalMs: 1_000 });
    b.probeResult(false);
    expect(b.state()).toBe('closed');
    b.probeResult(false);
    expect(b.state()).toBe('open');
    expect(b.retryAfterSeconds()).toBe(1);
    // Held open whatever time passes: no trial call while the probe says it is down.
    jest.advanceTimersByTime(60_000);
    expect(await outcome(b, ok)).toBe('refused');
    b.probeResult(false);
    b.probeResult(true);
    expect(b.state()).toBe('closed');
    expect(await outcome(b, ok)).toBe('ok');
  });

  it('a good probe between failed ones restarts the count', () => {
    const b = new Breaker({ name: 'webhooks', probeFailuresToOpen: 2 });
    for (let i = 0; i < 5; i++) {
      b.probeResult(false);
      b.probeResult(true);
    }
    expect(b.state()).toBe('closed');
  });

  it('closed by a probe after calls had opened it, it counts failures afresh', async () => {
    const b = new Breaker({ name: 'files', failuresToOpen: 2, probeFailuresToOpen: 1 });
    await outcome(b, down);
    await outcome(b, down);
    expect(b.state()).toBe('open');
    b.probeResult(false);
    b.probeResult(true);
    expect(b.state()).toBe('closed');
    expect(await outcome(b, down)).toBe('Unavailable');
    expect(b.state()).toBe('closed');
  });

  it('reports state changes and refusals', async () => {
    const b = new Breaker({ name: 'files', failuresToOpen: 1 });
    const states: string[] = [];
    let refusals = 0;
    b.onStateChange((s) => states.push(s));
    b.onRefused(() => refusals++);
    await outcome(b, down);
    await outcome(b, ok);
    await outcome(b, ok);
    expect(states).toEqual(['open']);
    expect(refusals).toBe(2);
  });
});
