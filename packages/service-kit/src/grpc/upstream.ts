import * as grpc from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import type { Logger } from 'pino';
import { counter, gauge, type MetricsRegistry } from '../metrics';
import { Breaker, type BreakerOptions, type BreakerState } from './breaker';
import { createGrpcClient, deriveClient, type DerivedClient, type UnaryCallOptions } from './client';
import { createGrpcChannel } from './channel';

interface HealthClient extends grpc.Client {
  Check(
    request: { service: string },
    options: grpc.CallOptions,
    callback: (error: grpc.ServiceError | null, response?: { status: string }) => void,
  ): grpc.ClientUnaryCall;
}

const HealthClientCtor = grpc.makeGenericClientConstructor(
  healthService as grpc.ServiceDefinition,
  'Health',
) as unknown as new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
) => HealthClient;

type ClientConstructor<C extends grpc.Client> = (new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
) => C) & { service: grpc.ServiceDefinition };

export interface ProbeOptions {
  /** Time between the end of one probe and the start of the next. */
  intervalMs: number;
  /** The probe's deadline: a peer that doesn't answer SERVING within it failed the probe. */
  timeoutMs: number;
}

export const PROBE_DEFAULTS: ProbeOptions = { intervalMs: 1_000, timeoutMs: 1_000 };

export interface UpstreamOptions {
  /** How metrics, logs and problem details name it: `membership`, `boards`... */
  name: string;
  address: string;
  /** Every service the clients of this upstream call (for the channel's retry policy). */
  services: grpc.ServiceDefinition[];
  /** The name the probe asks the peer's grpc.health.v1 about ('' = the server as a whole). */
  healthService: string;
  breaker?: Omit<BreakerOptions, 'name' | 'probeIntervalMs'>;
  probe?: Partial<ProbeOptions>;
  /** A connection wanted this long without one is given up for a fresh attempt (channel.ts). */
  connectTimeoutMs?: number;
  metrics?: MetricsRegistry;
  logger?: Logger;
}

/**
 * One gRPC upstream as its callers see it: one channel (one connection) for all the clients of the services it
 * serves, one breaker their calls go through, and one health probe on that same channel that opens the breaker
 * when the peer stops answering SERVING and closes it when it answers again (breaker.ts). The probe runs from
 * `start()` to `close()`.
 */
export interface Upstream {
  readonly name: string;
  readonly breaker: Breaker;
  /** A client of one of the upstream's services, on the shared channel and through the breaker. */
  client<C extends grpc.Client>(Ctor: ClientConstructor<C>): C;
  /** The same, as promise-returning functions (`deriveClient`). */
  derive<C extends grpc.Client>(Ctor: ClientConstructor<C>, options: UnaryCallOptions): DerivedClient<C>;
  /** Starts the health probe. */
  start(): void;
  /** Stops the probe and closes the channel. */
  close(): void;
}

export function createUpstream(options: UpstreamOptions): Upstream {
  const probe = { ...PROBE_DEFAULTS, ...options.probe };
  const breaker = new Breaker({ ...options.breaker, name: options.name, probeIntervalMs: probe.intervalMs });
  const channel = createGrpcChannel(options.address, options.services, {
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
  });
  const health = new HealthClientCtor(options.address, grpc.credentials.createInsecure(), {
    channelOverride: channel,
  });
  if (options.metrics) observeDependency(options.metrics, breaker);
  if (options.logger) logTransitions(options.logger, breaker);

  let timer: NodeJS.Timeout | undefined;
  let running = false;
  const check = () =>
    new Promise<boolean>((resolve) => {
      // No waitForReady: a peer that refuses connections fails the probe at once.
      health.Check(
        { service: options.healthService },
        { deadline: Date.now() + probe.timeoutMs },
        (err, res) => resolve(!err && res?.status === 'SERVING'),
      );
    });
  const loop = async () => {
    if (!running) return;
    breaker.probeResult(await check());
    if (running) timer = setTimeout(() => void loop(), probe.intervalMs).unref();
  };

  return {
    name: options.name,
    breaker,
    client: (Ctor) => createGrpcClient(Ctor, options.address, { ...options, channel, breaker }),
    derive: (Ctor, callOptions) =>
      deriveClient(Ctor, options.address, {
        ...callOptions,
        ...(options.metrics ? { metrics: options.metrics } : {}),
        channel,
        breaker,
      }),
    start() {
      if (running) return;
      running = true;
      void loop();
    },
    close() {
      running = false;
      if (timer) clearTimeout(timer);
      channel.close();
    },
  };
}

const STATE_VALUE: Record<BreakerState, number> = { closed: 0, 'half-open': 1, open: 2 };

/**
 * Per dependency, read at scrape time: `flowboard_dependency_up` (1 when its last probe succeeded and its circuit
 * lets calls through), `flowboard_dependency_circuit_state` (0 closed, 1 half-open, 2 open) and
 * `flowboard_dependency_rejected_total` (operations refused at once while it was down). For operators: none of
 * it gates readiness. Answers the function that sets the gauges again (for an `isUp` with other inputs).
 */
export function observeDependency(
  registry: MetricsRegistry,
  breaker: Breaker,
  isUp: () => boolean = () => breaker.probeOk() !== false && breaker.state() === 'closed',
): () => void {
  const up = gauge(registry, {
    name: 'flowboard_dependency_up',
    help: 'Whether a dependency answers (its last health probe succeeded and its circuit is closed)',
    labelNames: ['dependency'],
  });
  const state = gauge(registry, {
    name: 'flowboard_dependency_circuit_state',
    help: "A dependency's circuit breaker: 0 closed, 1 half-open, 2 open (its operations fail fast with 503)",
    labelNames: ['dependency'],
  });
  const rejected = counter(registry, {
    name: 'flowboard_dependency_rejected_total',
    help: 'Operations refused at once (503) because their dependency was known to be down',
    labelNames: ['dependency'],
  });
  const labels = { dependency: breaker.name };
  rejected.inc(labels, 0);
  const refresh = () => {
    up.set(labels, isUp() ? 1 : 0);
    state.set(labels, STATE_VALUE[breaker.state()]);
  };
  refresh();
  breaker.onStateChange(refresh);
  breaker.onRefused(() => rejected.inc(labels));
  breaker.onProbe(refresh);
  return refresh;
}

/** One log line per change of a dependency's circuit. */
export function logTransitions(logger: Logger, breaker: Breaker): void {
  breaker.onStateChange((state) => {
    if (state === 'closed') logger.info({ dependency: breaker.name }, 'dependency available again');
    else if (state === 'open')
      logger.warn({ dependency: breaker.name }, 'dependency down: its operations fail fast (503)');
  });
}
