import { Writable } from 'node:stream';
import { installInMemoryTracing, traceparent, type InMemoryTracing } from '@flowboard/testing';
import { runWithContext } from './context';
import { createLogger } from './logger';
import { extractTraceContext, inSpan } from './tracing';

/** A logger writing into an array, one parsed JSON object per line. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('test', 'info', destination) };
}

// First: once installed below, the in-memory SDK stays the global one for the rest of the file.
describe('log lines while tracing is off', () => {
  it('no SDK, no active span: no trace fields', async () => {
    const { lines, logger } = capture();
    await inSpan('noop', {}, async () => logger.info('untraced'));
    expect(lines[0]).toMatchObject({ msg: 'untraced' });
    expect(lines[0]).not.toHaveProperty('trace_id');
  });
});

describe('log lines and traces', () => {
  let tracing: InMemoryTracing;
  beforeAll(() => (tracing = installInMemoryTracing()));
  afterAll(() => tracing.shutdown());

  it('a line made inside a span carries that span’s trace_id and span_id', async () => {
    const { lines, logger } = capture();
    const ids = await inSpan('work', {}, async (span) => {
      logger.info('inside');
      return span.spanContext();
    });
    expect(lines[0]).toMatchObject({ msg: 'inside', trace_id: ids.traceId, span_id: ids.spanId });
    expect(lines[0]?.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(lines[0]?.span_id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('a nested span’s line names the inner span, in the caller’s trace (a child logger too)', async () => {
    const { lines, logger } = capture();
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = extractTraceContext({ traceparent: traceparent(callerTrace, '00f067aa0ba902b7') });
    const inner = await inSpan('outer', { parent }, () =>
      inSpan('inner', {}, async (span) => {
        logger.child({ component: 'x' }).warn('nested');
        return span.spanContext();
      }),
    );
    expect(lines[0]).toMatchObject({ component: 'x', trace_id: callerTrace, span_id: inner.spanId });
  });

  it('a line outside any span has no trace fields; the request context stays', () => {
    const { lines, logger } = capture();
    runWithContext({ requestId: 'r1', userId: 7 }, () => logger.info('outside'));
    expect(lines[0]).toMatchObject({ msg: 'outside', requestId: 'r1', userId: 7, service: 'test' });
    expect(lines[0]).not.toHaveProperty('trace_id');
    expect(lines[0]).not.toHaveProperty('span_id');
  });

  it('request context and trace fields together, with redaction unchanged', async () => {
    const { lines, logger } = capture();
    await runWithContext({ requestId: 'r2' }, () =>
      inSpan('req', {}, async () => logger.info({ email: 'bob@example.test' }, 'both')),
    );
    expect(lines[0]).toMatchObject({ requestId: 'r2', email: '[redacted]' });
    expect(lines[0]?.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });
});
