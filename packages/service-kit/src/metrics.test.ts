import {
  createMetricsRegistry,
  counter,
  gaugesOfOneRead,
  observePool,
  requestInstruments,
  sharedRead,
} from './metrics';

describe('metrics registry', () => {
  it('labels every sample with the service and has the default process metrics', async () => {
    const registry = createMetricsRegistry('boards');
    const text = await registry.metrics();
    expect(text).toMatch(/^process_cpu_user_seconds_total\{service="boards"\} /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds\{service="boards"\} /m);
  });

  it('reads pool gauges at scrape time', async () => {
    const registry = createMetricsRegistry('files');
    const pool = { totalCount: 3, idleCount: 1, waitingCount: 0 };
    observePool(registry, pool);
    pool.waitingCount = 4;
    const text = await registry.metrics();
    expect(text).toContain('flowboard_pg_pool_size{service="files"} 3');
    expect(text).toContain('flowboard_pg_pool_idle{service="files"} 1');
    expect(text).toContain('flowboard_pg_pool_waiting{service="files"} 4');
  });

  it('hands out the same instrument for the same name, so components can be re-created', () => {
    const registry = createMetricsRegistry('notifier');
    const a = counter(registry, { name: 'x_total', help: 'x' });
    expect(counter(registry, { name: 'x_total', help: 'x' })).toBe(a);
    const names = { total: 'r_total', seconds: 'r_seconds', what: 'r' };
    requestInstruments(registry, names, ['route']);
    expect(() => requestInstruments(registry, names, ['route'])).not.toThrow();
  });
});

describe('gauges of one read', () => {
  it('sharedRead runs one read for calls within its window, and a new one after it', async () => {
    let t = 0;
    const read = jest.fn(async () => t);
    const shared = sharedRead(read, 1_000, () => t);
    await expect(Promise.all([shared(), shared()])).resolves.toEqual([0, 0]);
    t = 900;
    await expect(shared()).resolves.toBe(0);
    t = 1_001;
    await expect(shared()).resolves.toBe(1_001);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('gives each gauge its value from one read per scrape; a failed read keeps the last values and is reported once', async () => {
    const registry = createMetricsRegistry('boards');
    let backlog: { count: number; age: number } | Error = { count: 7, age: 93.25 };
    const read = jest.fn(async () => {
      if (backlog instanceof Error) throw backlog;
      return backlog;
    });
    const errors: unknown[] = [];
    gaugesOfOneRead(registry, {
      read,
      onError: (err) => errors.push(err),
      reuseMs: 0,
      gauges: [
        { name: 'test_backlog', help: 'h', value: (r) => r.count },
        { name: 'test_oldest_seconds', help: 'h', value: (r) => r.age },
      ],
    });
    const scrape = async () => {
      const text = await registry.metrics();
      return [/^test_backlog\{[^}]*\} (\S+)$/m, /^test_oldest_seconds\{[^}]*\} (\S+)$/m].map(
        (re) => text.match(re)?.[1],
      );
    };
    expect(await scrape()).toEqual(['7', '93.25']);
    expect(read).toHaveBeenCalledTimes(1);
    backlog = new Error('database down');
    expect(await scrape()).toEqual(['7', '93.25']);
    expect(read).toHaveBeenCalledTimes(2);
    expect(errors).toEqual([backlog]);
  });
});
