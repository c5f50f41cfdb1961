/**
 * Starts the OpenTelemetry SDK when, and only when, the standard variables ask for traces. Imported first by each
 * service's `instrumentation.ts` (itself the first import of main.ts), so the pg instrumentation is in place before
 * pg loads. Kept out of the package index: nothing else should pay for loading it.
 */
import { beforeExit } from './shutdown';

type Env = Record<string, string | undefined>;

const list = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/**
 * Tracing is on when `OTEL_TRACES_EXPORTER` names an exporter other than `none`, or, with it unset, when an OTLP
 * endpoint is given; `OTEL_SDK_DISABLED=true` wins. With nothing set it is off: the SDK's own default (OTLP to
 * localhost) would otherwise send every pod's spans to a collector that is not there.
 */
export function tracingRequested(env: Env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = list(env.OTEL_TRACES_EXPORTER);
  if (exporters.length > 0) return exporters.some((e) => e !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export interface TracingHandle {
  shutdown(): Promise<void>;
}

/**
 * Starts the NodeSDK, which reads every other `OTEL_*` variable itself (exporter, endpoint, protocol, headers,
 * sampler, propagators, resource attributes). `service` is the default `service.name` when `OTEL_SERVICE_NAME`
 * is unset. Metrics and logs stay ours (Prometheus, pino) unless `OTEL_METRICS_EXPORTER`/`OTEL_LOGS_EXPORTER`
 * are set explicitly. Returns undefined when tracing is off.
 */
export function startTracing(service: string): TracingHandle | undefined {
  const env = process.env; // the SDK reads the same variables from there
  if (!tracingRequested(env)) return undefined;
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  // Loaded only now: with tracing off, the SDK and its exporters are never even read from disk.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: service }),
    // Statements are parameterised ($1...), and values are never recorded (enhancedDatabaseReporting off).
    instrumentations: [new PgInstrumentation({ requireParentSpan: true })],
  });
  sdk.start();
  beforeExit(() => sdk.shutdown());
  return { shutdown: () => sdk.shutdown() };
}
