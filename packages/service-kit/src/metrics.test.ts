import { createMetricsRegistry, counter, observePool, requestInstruments } from './metrics';

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
