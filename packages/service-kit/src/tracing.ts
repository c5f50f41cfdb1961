import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

/**
 * Tracing through the OpenTelemetry API only: without a started SDK (tracing-sdk.ts, off by default) every call
 * here is the API's no-op. Spans are made by hand at our seams (HTTP in, gRPC in and out, outbox, Kafka, SMTP),
 * so they work the same under Jest, where module-patching instrumentations cannot. Attributes never carry
 * addresses, keys, tokens or names of people.
 */
export const tracer = () => trace.getTracer('flowboard');

export { context as otelContext, SpanKind, SpanStatusCode, type Context, type Span };

/** `parent` (default: the active context) with `span` as its current span. */
export const contextWithSpan = (span: Span, parent: Context = context.active()): Context =>
  trace.setSpan(parent, span);

/** A string map (Kafka headers, outbox headers, HTTP headers) with the active trace context written into it. */
export function injectTraceContext(
  carrier: Record<string, string> = {},
  from: Context = context.active(),
): Record<string, string> {
  propagation.inject(from, carrier);
  return carrier;
}

/**
 * The context a string map carries (W3C `traceparent`/`tracestate` with the default propagators), on top of
 * `base`: by default the root, since a message or a stored event belongs to its producer's trace, not ours.
 */
export function extractTraceContext(
  carrier: Record<string, string | string[] | undefined>,
  base: Context = ROOT_CONTEXT,
): Context {
  return propagation.extract(base, carrier, {
    keys: (c) => Object.keys(c),
    get: (c, key) => {
      const v = c[key];
      return Array.isArray(v) ? v[0] : v;
    },
  });
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** Parent context; default the active one. */
  parent?: Context;
}

/**
 * Runs `fn` in a new active span and ends it when `fn` settles; a failure marks the span as an error with the
 * error's code or class only (messages may quote addresses, e.g. SMTP refusals).
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const span = tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    options.parent ?? context.active(),
  );
  const active = trace.setSpan(options.parent ?? context.active(), span);
  try {
    return await context.with(active, () => fn(span));
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

export function failSpan(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorClass(err) });
  span.setAttribute('error.type', errorClass(err));
}

const errorClass = (err: unknown): string =>
  err instanceof Error ? ((err as { code?: unknown }).code?.toString() ?? err.name) : 'Error';
