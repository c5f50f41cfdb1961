import { installInMemoryTracing, traceparent, type InMemoryTracing } from '@flowboard/testing';
import { SpanKind } from '@opentelemetry/api';
import { extractTraceContext, inSpan, injectTraceContext } from './tracing';

let tracing: InMemoryTracing;
beforeAll(() => (tracing = installInMemoryTracing()));
afterAll(() => tracing.shutdown());
beforeEach(() => tracing.exporter.reset());

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

describe('trace context in string maps (outbox rows, Kafka headers)', () => {
  it('injects the active span as a W3C traceparent', async () => {
    const carrier = await inSpan('work', {}, async (span) => {
      const c = injectTraceContext({ other: 'kept' });
      expect(c.traceparent).toBe(traceparent(span.spanContext().traceId, span.spanContext().spanId));
      return c;
    });
    expect(carrier.other).toBe('kept');
  });

  it('a span started from an extracted context continues the caller’s trace', async () => {
    const parent = extractTraceContext({ traceparent: traceparent(TRACE_ID, SPAN_ID) });
    await inSpan('consume', { kind: SpanKind.CONSUMER, parent }, async () => undefined);
    const [span] = tracing.spans('consume');
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.parentSpanContext?.spanId).toBe(SPAN_ID);
  });

  it('extracts from the root, not from whatever is active', async () => {
    await inSpan('unrelated', {}, async () => {
      await inSpan('from-message', { parent: extractTraceContext({}) }, async () => undefined);
    });
    const [span] = tracing.spans('from-message');
    expect(span?.parentSpanContext).toBeUndefined();
  });

  it('marks a failed span as an error with the error class only', async () => {
    await expect(
      inSpan('fails', {}, async () => {
        throw new TypeError('bob@example.test refused');
      }),
    ).rejects.toThrow(TypeError);
    const [span] = tracing.spans('fails');
    expect(span?.status).toEqual({ code: 2, message: 'TypeError' });
    expect(JSON.stringify(span?.attributes)).not.toContain('example.test');
    expect(span?.events).toHaveLength(0);
  });
});
