import http from 'node:http';
import type { Logger } from 'pino';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
  type Metric,
} from 'prom-client';
import { closeServer, listen } from './health-server';

/**
 * Prometheus metrics. Every service makes one registry in its composition root and hands it to what it
 * instruments (gRPC server and clients, pool, outbox, consumers); a registry per app, not prom-client's global
 * one, so tests can boot several services in one process. Labels never carry ids, addresses or keys.
 */
export type MetricsRegistry = Registry;

/** A registry labelled `service=<name>` with Node's default process metrics. */
export function createMetricsRegistry(service: string): MetricsRegistry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Latency buckets (seconds) shared by HTTP and gRPC: 2.5 ms to 10 s. */
export const LATENCY_BUCKETS = [0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

// Get-or-create: several components of one app (e.g. consumers re-created while joining) may ask for the same
// instrument; prom-client refuses a second registration of a name.
function instrument<M extends Metric>(registry: MetricsRegistry, name: string, make: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? make();
}

export function counter<L extends string>(
  registry: MetricsRegistry,
  config: Omit<CounterConfiguration<L>, 'registers'>,
): Counter<L> {
  return instrument(registry, config.name, () => new Counter({ ...config, registers: [registry] }));
}

export function gauge<L extends string>(
  registry: MetricsRegistry,
  config: Omit<GaugeConfiguration<L>, 'registers'>,
): Gauge<L> {
  return instrument(registry, config.name, () => new Gauge({ ...config, registers: [registry] }));
}

/**
 * Gauges whose values come from one read at scrape time (a backlog's size and its oldest entry's age from one
 * query): the gauges of one scrape share the read, which runs again once `reuseMs` have passed. A failed read
 * keeps every gauge's last value and reaches `onError` once.
 */
export function gaugesOfOneRead<R>(
  registry: MetricsRegistry,
  options: {
    read: () => Promise<R>;
    onError: (err: unknown) => void;
    gauges: { name: string; help: string; value: (result: R) => number }[];
    reuseMs?: number;
  },
): void {
  const read = sharedRead(async () => {
    try {
      return { ok: true as const, result: await options.read() };
    } catch (err) {
      options.onError(err);
      return { ok: false as const };
    }
  }, options.reuseMs);
  for (const { name, help, value } of options.gauges)
    gauge(registry, {
      name,
      help,
      async collect() {
        const outcome = await read();
        if (outcome.ok) this.set(value(outcome.result));
      },
    });
}

/**
 * One read for callers that come while it runs or within `reuseMs` of its start (the gauges of one scrape): the
 * first call runs it, the others get its result (or its failure).
 */
export function sharedRead<T>(read: () => Promise<T>, reuseMs = 1_000, now = Date.now): () => Promise<T> {
  let last: { at: number; result: Promise<T>; settled: boolean } | undefined;
  return () => {
    if (!last || (last.settled && now() - last.at >= reuseMs)) {
      const started = { at: now(), result: read(), settled: false };
      const settle = () => (started.settled = true);
      started.result.then(settle, settle);
      last = started;
    }
    return last.result;
  };
}

export function histogram<L extends string>(
  registry: MetricsRegistry,
  config: Omit<HistogramConfiguration<L>, 'registers'>,
): Histogram<L> {
  return instrument(
    registry,
    config.name,
    () => new Histogram({ buckets: LATENCY_BUCKETS, ...config, registers: [registry] }),
  );
}

/** A count and a latency histogram with the same labels, e.g. requests by route and status. */
export interface RequestInstruments<L extends string> {
  observe(labels: Record<L, string>, seconds: number): void;
}

export function requestInstruments<L extends string>(
  registry: MetricsRegistry,
  names: { total: string; seconds: string; what: string },
  labelNames: readonly L[],
): RequestInstruments<L> {
  const total = counter(registry, { name: names.total, help: `${names.what}, completed`, labelNames });
  const seconds = histogram(registry, {
    name: names.seconds,
    help: `${names.what}: time to complete, in seconds`,
    labelNames,
  });
  return {
    observe(labels, s) {
      total.inc(labels as never);
      seconds.observe(labels as never, s);
    },
  };
}

/** What a connection pool reports (pg.Pool has these); structural, so service-kit needs no pg. */
export interface PoolStats {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/** `flowboard_pg_pool_{size,idle,waiting}`, read from the pool at scrape time. */
export function observePool(registry: MetricsRegistry, pool: PoolStats): void {
  const read: Array<[string, string, (p: PoolStats) => number]> = [
    ['flowboard_pg_pool_size', 'PostgreSQL connections open (idle and in use)', (p) => p.totalCount],
    ['flowboard_pg_pool_idle', 'PostgreSQL connections open and idle', (p) => p.idleCount],
    ['flowboard_pg_pool_waiting', 'Queries waiting for a PostgreSQL connection', (p) => p.waitingCount],
  ];
  for (const [name, help, value] of read)
    gauge(registry, {
      name,
      help,
      collect() {
        this.set(value(pool));
      },
    });
}

/** GET /metrics in Prometheus' text format; anything else is 404. Meant for its own port, never the API's. */
export function createMetricsServer(registry: MetricsRegistry): http.Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'Content-Type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: Error) => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`metrics collection failed: ${err.message}\n`);
      },
    );
  });
}

/** The metrics listener of a service: its own port, started and stopped with the app. */
export interface MetricsEndpoint {
  /** Listens; resolves to the bound port (tests pass 0). */
  start(): Promise<number>;
  stop(): Promise<void>;
  /** The bound port once started, else 0. */
  port(): number;
}

export function metricsEndpoint(
  registry: MetricsRegistry,
  options: { port: number; host: string; logger: Logger },
): MetricsEndpoint {
  const server = createMetricsServer(registry);
  let bound = 0;
  return {
    async start() {
      bound = await listen(server, options.port, options.host);
      options.logger.info({ port: bound }, 'metrics listening');
      return bound;
    },
    stop: () => closeServer(server),
    port: () => bound,
  };
}
