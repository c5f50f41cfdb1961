import { Dispatcher } from './dispatcher';
import type { ClaimedDelivery } from './ports';

const claim = (id: number): ClaimedDelivery => ({
  id,
  webhookId: 1,
  projectId: 1,
  eventId: `e${id}`,
  subject: `story:${id}`,
  attempt: 1,
  leaseToken: `l${id}`,
  url: 'https://example.com/',
  secret: 'whsec_x',
  body: '{}',
  elapsedMs: 0,
});

const quiet = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Due deliveries in a queue; claims take from it. Attempts wait until released. */
function harness(due: number, concurrency: number) {
  let next = 1;
  let remaining = due;
  const claims: number[] = [];
  const running = new Map<number, () => void>();
  const aborted: number[] = [];
  let maxInFlight = 0;
  const dispatcher = new Dispatcher({
    deliveries: {
      claimDue: async (limit) => {
        claims.push(limit);
        const n = Math.min(limit, remaining);
        remaining -= n;
        return Array.from({ length: n }, () => claim(next++));
      },
    },
    attempt: (c, signal) =>
      new Promise<void>((resolve) => {
        running.set(c.id, resolve);
        maxInFlight = Math.max(maxInFlight, running.size);
        signal.addEventListener('abort', () => {
          aborted.push(c.id);
          resolve();
        });
      }).finally(() => running.delete(c.id)),
    concurrency,
    intervalMs: 10_000,
    leaseMs: 1_000,
    logger: quiet,
  });
  return {
    dispatcher,
    claims,
    running,
    aborted,
    maxInFlight: () => maxInFlight,
    add: (n: number) => (remaining += n),
  };
}

describe('Dispatcher', () => {
  it('never has more attempts in flight than its concurrency, and claims again as slots free up', async () => {
    const h = harness(7, 3);
    h.dispatcher.start();
    await tick();
    expect([...h.running.keys()]).toEqual([1, 2, 3]);
    h.running.get(2)!();
    await tick();
    expect([...h.running.keys()].sort()).toEqual([1, 3, 4]);
    for (let i = 0; i < 10; i++) {
      for (const release of [...h.running.values()]) release();
      await tick();
    }
    expect(h.maxInFlight()).toBe(3);
    expect(h.running.size).toBe(0);
    await h.dispatcher.stop(100);
  });

  it('claims at once when woken (ingestion, redelivery) instead of waiting for the interval', async () => {
    const h = harness(0, 2);
    h.dispatcher.start();
    await tick();
    expect(h.running.size).toBe(0);
    h.add(1);
    h.dispatcher.wake();
    await tick();
    expect(h.running.size).toBe(1);
    await h.dispatcher.stop(0);
  });

  it('on stop, lets attempts finish within the drain time, then abandons the rest', async () => {
    const h = harness(2, 2);
    h.dispatcher.start();
    await tick();
    const stopping = h.dispatcher.stop(50);
    h.running.get(1)!();
    await stopping;
    expect(h.aborted).toEqual([2]);
    expect(h.dispatcher.busy()).toBe(0);
  });

  it('keeps going after a claim fails (database down)', async () => {
    let calls = 0;
    const dispatcher = new Dispatcher({
      deliveries: {
        claimDue: async () => {
          if (++calls === 1) throw new Error('connection refused');
          return [];
        },
      },
      attempt: async () => undefined,
      concurrency: 1,
      intervalMs: 5,
      leaseMs: 1_000,
      logger: quiet,
    });
    dispatcher.start();
    await new Promise((resolve) => setTimeout(resolve, 60));
    await dispatcher.stop(0);
    expect(calls).toBeGreaterThan(1);
  });
});
