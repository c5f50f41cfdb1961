import * as grpc from '@grpc/grpc-js';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import { requestInstruments, type MetricsRegistry, type RequestInstruments } from '../metrics';
import { tracer } from '../tracing';

/**
 * Metrics and spans for every unary gRPC call, server and client side, in one place: createGrpcServer wraps each
 * handler, unaryCall each call. The trace context travels in metadata (`traceparent`, `tracestate`).
 */
type GrpcLabels = 'grpc_service' | 'grpc_method' | 'grpc_code';

const metadataGetter = {
  keys: (m: grpc.Metadata) => Object.keys(m.getMap()),
  get: (m: grpc.Metadata, key: string) => m.get(key)[0]?.toString(),
};
const metadataSetter = { set: (m: grpc.Metadata, key: string, value: string) => m.set(key, value) };

// Server spans are errors only for the server's own faults (OpenTelemetry's gRPC conventions); a NOT_FOUND is an
// answer, not a failure. Client spans are errors for any code but OK.
const SERVER_FAULTS = new Set([
  grpc.status.UNKNOWN,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.UNIMPLEMENTED,
  grpc.status.INTERNAL,
  grpc.status.UNAVAILABLE,
  grpc.status.DATA_LOSS,
]);

function splitPath(path: string): { service: string; method: string } {
  const match = /^\/([^/]+)\/([^/]+)$/.exec(path);
  return { service: match?.[1] ?? 'unknown', method: match?.[2] ?? 'unknown' };
}

const codeName = (code: number): string => grpc.status[code] ?? String(code);

function endSpan(span: Span, code: number, isFault: boolean): void {
  span.setAttribute('rpc.grpc.status_code', code);
  if (isFault) span.setStatus({ code: SpanStatusCode.ERROR, message: codeName(code) });
  span.end();
}

export function grpcServerInstruments(registry: MetricsRegistry): RequestInstruments<GrpcLabels> {
  return requestInstruments(
    registry,
    {
      total: 'flowboard_grpc_server_handled_total',
      seconds: 'flowboard_grpc_server_handling_seconds',
      what: 'gRPC calls served',
    },
    ['grpc_service', 'grpc_method', 'grpc_code'],
  );
}

/** Wraps a unary handler: a server span (child of the caller's, from metadata) active around it, and metrics. */
export function observeUnaryHandler(
  handler: grpc.handleUnaryCall<unknown, unknown>,
  instruments: RequestInstruments<GrpcLabels> | undefined,
): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const { service, method } = splitPath(call.getPath());
    const parent = propagation.extract(ROOT_CONTEXT, call.metadata, metadataGetter);
    const span = tracer().startSpan(
      `${service}/${method}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method },
      },
      parent,
    );
    const started = performance.now();
    const done: grpc.sendUnaryData<unknown> = (error, value, trailer, flags) => {
      const code = error ? (error.code ?? grpc.status.UNKNOWN) : grpc.status.OK;
      instruments?.observe(
        { grpc_service: service, grpc_method: method, grpc_code: codeName(code) },
        (performance.now() - started) / 1000,
      );
      endSpan(span, code, SERVER_FAULTS.has(code));
      callback(error, value, trailer, flags);
    };
    context.with(trace.setSpan(parent, span), () => handler(call, done));
  };
}

/** Wraps every handler of a service implementation (all our RPCs are unary). */
export function observeImplementation(
  implementation: grpc.UntypedServiceImplementation,
  instruments: RequestInstruments<GrpcLabels> | undefined,
): grpc.UntypedServiceImplementation {
  return Object.fromEntries(
    Object.entries(implementation).map(([name, handler]) => [
      name,
      observeUnaryHandler(handler as grpc.handleUnaryCall<unknown, unknown>, instruments),
    ]),
  );
}

interface ClientObservation {
  service: string;
  instruments?: RequestInstruments<GrpcLabels>;
}

const clients = new WeakMap<grpc.Client, ClientObservation>();

/** Remembers which service a client calls and where its metrics go (createGrpcClient does this). */
export function observeClient(client: grpc.Client, service: string, registry?: MetricsRegistry): void {
  clients.set(client, {
    service,
    instruments: registry
      ? requestInstruments(
          registry,
          {
            total: 'flowboard_grpc_client_handled_total',
            seconds: 'flowboard_grpc_client_handling_seconds',
            what: 'gRPC calls made',
          },
          ['grpc_service', 'grpc_method', 'grpc_code'],
        )
      : undefined,
  });
}

/**
 * Starts a client span for one call and writes its context into `metadata`; the returned function ends the span
 * and records the call with its final status code.
 */
export function startClientCall(
  client: grpc.Client,
  method: string,
  metadata: grpc.Metadata,
): (code: number) => void {
  const observation = clients.get(client);
  const service = observation?.service ?? 'unknown';
  const span = tracer().startSpan(`${service}/${method}`, {
    kind: SpanKind.CLIENT,
    attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method },
  });
  propagation.inject(trace.setSpan(context.active(), span), metadata, metadataSetter);
  const started = performance.now();
  return (code) => {
    observation?.instruments?.observe(
      { grpc_service: service, grpc_method: method, grpc_code: codeName(code) },
      (performance.now() - started) / 1000,
    );
    endSpan(span, code, code !== grpc.status.OK);
  };
}
