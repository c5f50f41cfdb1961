import * as grpc from '@grpc/grpc-js';
import { SpanKind, trace } from '@opentelemetry/api';
import { installInMemoryTracing, metricValue, traceparent, type InMemoryTracing } from '@flowboard/testing';
import {
  createGrpcClient,
  createGrpcServer,
  createLogger,
  createMetricsRegistry,
  DomainError,
  inSpan,
  recordChange,
  runWithContext,
  unary,
  unaryCall,
  type GrpcServer,
  type RequestContext,
} from '../../src';

// A JSON-coded service by hand: the propagation and metrics live in createGrpcServer/unaryCall, whatever the
// contract.
const json = {
  serialize: (v: unknown) => Buffer.from(JSON.stringify(v)),
  deserialize: (b: Buffer) => JSON.parse(b.toString()) as unknown,
};
const definition: grpc.ServiceDefinition = {
  Echo: {
    path: '/test.v1.EchoService/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};
const EchoClient = grpc.makeGenericClientConstructor(definition, 'EchoService');
type Echo = grpc.Client & {
  Echo(
    req: { text: string; changes?: string[] },
    cb: grpc.requestCallback<{ text: string; traceId?: string }>,
  ): grpc.ClientUnaryCall;
};

const logger = createLogger('test', 'silent');
let tracing: InMemoryTracing;
let server: GrpcServer;
let address: string;
const serverMetrics = createMetricsRegistry('echo');
const clientMetrics = createMetricsRegistry('caller');

beforeAll(async () => {
  tracing = installInMemoryTracing();
  server = createGrpcServer({
    port: 0,
    logger,
    metrics: serverMetrics,
    services: [
      {
        name: 'test.v1.EchoService',
        definition,
        implementation: {
          Echo: unary(logger, async (req: { text: string; changes?: string[] }) => {
            for (const id of req.changes ?? []) recordChange(id);
            if (req.text === 'missing') throw new DomainError('NotFound', 'no such thing');
            // The handler runs inside the server span.
            return { text: req.text, traceId: trace.getActiveSpan()?.spanContext().traceId };
          }),
        },
      },
    ],
  });
  address = `127.0.0.1:${await server.start()}`;
});
afterAll(async () => {
  await server.stop();
  await tracing.shutdown();
});
beforeEach(() => tracing.exporter.reset());

describe('gRPC calls carry the trace context in metadata and are counted', () => {
  it('a raw caller’s traceparent metadata makes the server span its child', async () => {
    const client = new EchoClient(address, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set('traceparent', traceparent('0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331'));
    const answer = await new Promise<{ traceId?: string }>((resolve, reject) =>
      client.makeUnaryRequest(
        '/test.v1.EchoService/Echo',
        json.serialize,
        json.deserialize as (b: Buffer) => { traceId?: string },
        { text: 'hi' },
        metadata,
        { deadline: Date.now() + 5_000 },
        (err, res) => (err ? reject(err) : resolve(res as { traceId?: string })),
      ),
    );
    client.close();
    expect(answer.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    const [span] = tracing.spans('test.v1.EchoService/Echo');
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(span?.attributes['rpc.method']).toBe('Echo');
  });

  it('unaryCall makes a client span, and the server span is its child in the same trace', async () => {
    const client = createGrpcClient(EchoClient as never, address, { metrics: clientMetrics }) as Echo;
    await inSpan('request', {}, () => unaryCall(client, 'Echo', { text: 'hi' }, { deadlineMs: 5_000 }));
    await expect(unaryCall(client, 'Echo', { text: 'missing' }, { deadlineMs: 5_000 })).rejects.toMatchObject(
      { kind: 'NotFound' },
    );
    client.close();

    const [root] = tracing.spans('request');
    const [clientSpan, failedClientSpan] = tracing
      .spans('test.v1.EchoService/Echo')
      .filter((s) => s.kind === SpanKind.CLIENT);
    const [serverSpan] = tracing.spans('test.v1.EchoService/Echo').filter((s) => s.kind === SpanKind.SERVER);
    expect(clientSpan?.parentSpanContext?.spanId).toBe(root?.spanContext().spanId);
    expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);
    expect(serverSpan?.spanContext().traceId).toBe(root?.spanContext().traceId);
    expect(failedClientSpan?.status.code).toBe(2); // a client sees any non-OK code as a failure

    const served = await serverMetrics.metrics();
    const echo = { service: 'echo', grpc_service: 'test.v1.EchoService', grpc_method: 'Echo' };
    expect(metricValue(served, 'flowboard_grpc_server_handled_total', { ...echo, grpc_code: 'OK' })).toBe(2);
    expect(
      metricValue(served, 'flowboard_grpc_server_handled_total', { ...echo, grpc_code: 'NOT_FOUND' }),
    ).toBe(1);
    expect(
      metricValue(served, 'flowboard_grpc_server_handling_seconds_count', { ...echo, grpc_code: 'OK' }),
    ).toBe(2);
    const called = await clientMetrics.metrics();
    const caller = { ...echo, service: 'caller' };
    expect(metricValue(called, 'flowboard_grpc_client_handled_total', { ...caller, grpc_code: 'OK' })).toBe(
      1,
    );
    expect(
      metricValue(called, 'flowboard_grpc_client_handled_total', { ...caller, grpc_code: 'NOT_FOUND' }),
    ).toBe(1);
    expect(
      metricValue(called, 'flowboard_grpc_client_handling_seconds_count', { ...caller, grpc_code: 'OK' }),
    ).toBe(1);
  });
});

describe('the changes a call made travel back to its caller (trailing metadata)', () => {
  const call = (client: Echo, context: RequestContext, text: string, changes: string[]) =>
    runWithContext(context, () => unaryCall(client, 'Echo', { text, changes }, { deadlineMs: 5_000 }));

  it('each successful call adds its changes to the caller’s record, in order; a failed one adds none', async () => {
    const client = createGrpcClient(EchoClient as never, address) as Echo;
    const context: RequestContext = { requestId: 'r1', changes: [] };
    await call(client, context, 'first', ['a', 'b']);
    expect(context.changes).toEqual(['a', 'b']);
    await call(client, context, 'nothing changed', []);
    await expect(call(client, context, 'missing', ['never'])).rejects.toMatchObject({ kind: 'NotFound' });
    await call(client, context, 'second', ['c']);
    expect(context.changes).toEqual(['a', 'b', 'c']);

    // A caller that keeps no record (a background job) is not affected.
    const quiet: RequestContext = { requestId: 'r2' };
    await expect(call(client, quiet, 'hi', ['d'])).resolves.toMatchObject({ text: 'hi' });
    expect(quiet.changes).toBeUndefined();
    client.close();
  });
});
