import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export type { ReadableSpan };

export interface InMemoryTracing {
  exporter: InMemorySpanExporter;
  /** Ended spans named `name` so far. */
  spans(name?: string): ReadableSpan[];
  shutdown(): Promise<void>;
}

/**
 * A real tracer provider for the test process (global, with the W3C propagators and the AsyncLocalStorage context
 * manager, as the SDK sets up in a service) that keeps every ended span in memory.
 */
export function installInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  return {
    exporter,
    spans: (name) => exporter.getFinishedSpans().filter((s) => name === undefined || s.name === name),
    shutdown: () => provider.shutdown(),
  };
}

/** `00-<trace id>-<span id>-01`: a sampled W3C traceparent, as a caller would send it. */
export function traceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

export interface MetricSample {
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format → the samples of `name`, labels parsed (their order in the text does not matter). */
export function metricSamples(text: string, name: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1] as string, l[2] as string]),
    );
    samples.push({ labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of the first sample of `name` whose labels include `labels`, or undefined. */
export function metricValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return metricSamples(text, name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    ?.value;
}
