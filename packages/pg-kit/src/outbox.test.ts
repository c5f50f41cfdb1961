import { installInMemoryTracing, traceparent, type InMemoryTracing } from '@flowboard/testing';
import type pg from 'pg';
import {
  createLogger,
  createMetricsRegistry,
  inSpan,
  runWithContext,
  SpanKind,
} from '@flowboard/service-kit';
import { enqueueOutbox, OutboxRelay, readPending, startPublishSpan } from './outbox';
import type { Queryable } from './pool';

let tracing: InMemoryTracing;
beforeAll(() => (tracing = installInMemoryTracing()));
afterAll(() => tracing.shutdown());
beforeEach(() => tracing.exporter.reset());

/** Records the INSERT's parameters instead of running it. */
function recordingTx() {
  const params: unknown[][] = [];
  const tx = {
    query: async (_sql: string, values: unknown[]) => params.push(values),
  } as unknown as Queryable;
  return { tx, storedHeaders: () => JSON.parse(params[0]?.[4] as string) as Record<string, string> };
}

describe('trace context through the outbox', () => {
  it('enqueueOutbox stores the active trace context with the event, next to its own headers', async () => {
    const { tx, storedHeaders } = recordingTx();
    const span = await inSpan('CreateInvite', { kind: SpanKind.SERVER }, async (s) => {
      await enqueueOutbox(tx, 'membership', {
        id: '7d8e3a52-0f3c-4f5e-9d53-0b5d0c8a1f00',
        topic: 'membership.invite-created.v1',
        key: '1',
        payload: {},
        headers: { 'x-custom': 'kept' },
      });
      return s.spanContext();
    });
    expect(storedHeaders()).toEqual({
      'x-custom': 'kept',
      traceparent: traceparent(span.traceId, span.spanId),
    });
  });

  it("stores the request's id from its context, unless the event names one", async () => {
    const implicit = recordingTx();
    await runWithContext({ requestId: 'req-1', userId: 7 }, () =>
      enqueueOutbox(implicit.tx, 'boards', { id: 'x', topic: 't', key: 'k', payload: {} }),
    );
    expect(implicit.storedHeaders()).toEqual({ 'x-request-id': 'req-1' });
    const explicit = recordingTx();
    await runWithContext({ requestId: 'req-1' }, () =>
      enqueueOutbox(explicit.tx, 'boards', {
        id: 'x',
        topic: 't',
        key: 'k',
        payload: {},
        headers: { 'x-request-id': 'req-0' },
      }),
    );
    expect(explicit.storedHeaders()).toEqual({ 'x-request-id': 'req-0' });
  });

  it('stores no trace context outside a trace', async () => {
    const { tx, storedHeaders } = recordingTx();
    await enqueueOutbox(tx, 'boards', { id: 'x', topic: 't', key: 'k', payload: {} });
    expect(storedHeaders()).toEqual({});
  });

  it('the relay publishes in a producer span, child of the stored context, whose context the message carries', () => {
    const stored = {
      traceparent: traceparent('4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7'),
      a: 'b',
    };
    const { span, headers } = startPublishSpan('membership.invite-created.v1', stored);
    span.end();
    const [published] = tracing.spans('publish membership.invite-created.v1');
    expect(published?.kind).toBe(SpanKind.PRODUCER);
    expect(published?.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(published?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(published?.attributes['messaging.destination.name']).toBe('membership.invite-created.v1');
    expect(headers).toEqual({
      a: 'b',
      traceparent: traceparent('4bf92f3577b34da6a3ce929d0e0e4736', published!.spanContext().spanId),
    });
    expect(stored.traceparent).toContain('00f067aa0ba902b7'); // the row's own value is untouched
  });
});

describe("the outbox's pending rows at scrape time", () => {
  /** A pool answering the pending read with `row`, recording the statements. */
  function fakePool(row: { n: number; oldest: number | null }) {
    const statements: string[] = [];
    const pool = {
      query: async (sql: string) => {
        statements.push(sql.replace(/\s+/g, ' ').trim());
        return { rows: [row] };
      },
    } as unknown as pg.Pool;
    return { pool, statements };
  }

  it('reads how many rows wait and the age of the oldest, over the unpublished rows only', async () => {
    const { pool, statements } = fakePool({ n: 4, oldest: 12.5 });
    await expect(readPending(pool, '"boards".outbox')).resolves.toEqual({ count: 4, oldestSeconds: 12.5 });
    expect(statements).toEqual([
      'SELECT count(*)::int AS n, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest ' +
        'FROM "boards".outbox WHERE published_at IS NULL',
    ]);
    // An empty outbox: min() is null, coalesced to 0 (and never negative when clocks disagree).
    await expect(readPending(fakePool({ n: 0, oldest: 0 }).pool, 't')).resolves.toEqual({
      count: 0,
      oldestSeconds: 0,
    });
    await expect(readPending(fakePool({ n: 1, oldest: -0.2 }).pool, 't')).resolves.toEqual({
      count: 1,
      oldestSeconds: 0,
    });
  });

  it('exports flowboard_outbox_backlog and flowboard_outbox_oldest_seconds from one query per scrape', async () => {
    const { pool, statements } = fakePool({ n: 7, oldest: 93.25 });
    const metrics = createMetricsRegistry('boards');
    new OutboxRelay({
      pool,
      schema: 'boards',
      publisher: { publish: async () => undefined },
      logger: createLogger('test', 'silent'),
      metrics,
    });
    const text = await metrics.metrics();
    expect(text).toMatch(/^flowboard_outbox_backlog\{service="boards"\} 7$/m);
    expect(text).toMatch(/^flowboard_outbox_oldest_seconds\{service="boards"\} 93\.25$/m);
    expect(statements).toHaveLength(1);
  });
});
