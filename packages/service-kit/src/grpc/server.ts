import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from 'pino';
import {
  CHANGES_HEADER,
  changesHeaderValue,
  newRequestId,
  runWithContext,
  type RequestContext,
} from '../context';
import { DomainError, isDomainError, toGrpcError } from '../errors';
import type { MetricsRegistry } from '../metrics';
import { metadataToContext } from './metadata';
import { grpcServerInstruments, observeImplementation } from './observe';
import { unavailableIfUnreachable } from './unreachable';

export interface GrpcServiceRegistration {
  /** Fully qualified name, e.g. `flowboard.boards.v1.StoriesService`, as reported by the health service. */
  name: string;
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
}

export interface GrpcServerOptions {
  host?: string;
  port: number;
  logger: Logger;
  services: GrpcServiceRegistration[];
  /** Connections are recycled after this age so clients reach pods added by a scale-out. */
  maxConnectionAgeMs?: number;
  /** Where call counts and latencies go (`flowboard_grpc_server_*`); spans are made either way. */
  metrics?: MetricsRegistry;
}

export interface GrpcServer {
  /** Binds, serves, and reports SERVING; resolves to the bound port (useful with port 0 in tests). */
  start(): Promise<number>;
  /** NOT_SERVING, then drains in-flight calls; forces the rest after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export function createGrpcServer(options: GrpcServerOptions): GrpcServer {
  const server = new grpc.Server({
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? 5 * 60_000,
    'grpc.max_connection_age_grace_ms': 30_000,
  });
  const names = options.services.map((s) => s.name);
  const health = new HealthImplementation(
    Object.fromEntries(['', ...names].map((n) => [n, 'NOT_SERVING' as const])),
  );
  health.addToServer(server);
  // Every handler is observed here, once: a span from the caller's trace context, and metrics by method and code.
  // The health service is not: probes would drown the numbers.
  const instruments = options.metrics ? grpcServerInstruments(options.metrics) : undefined;
  for (const s of options.services)
    server.addService(s.definition, observeImplementation(s.implementation, instruments));
  const setAll = (status: 'SERVING' | 'NOT_SERVING') =>
    ['', ...names].forEach((n) => health.setStatus(n, status));

  return {
    async start() {
      const address = `${options.host ?? '127.0.0.1'}:${options.port}`;
      const port = await new Promise<number>((resolve, reject) =>
        server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, bound) =>
          err ? reject(err) : resolve(bound),
        ),
      );
      setAll('SERVING');
      options.logger.info({ port, services: names }, 'gRPC server listening');
      return port;
    },
    async stop(graceMs = 10_000) {
      setAll('NOT_SERVING');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          options.logger.warn('gRPC drain timed out; forcing shutdown');
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/** The call's changes (CHANGES_HEADER) as trailing metadata, so the caller can name them in its own answer. */
function changesTrailer(ctx: CallContext): grpc.Metadata | undefined {
  const value = changesHeaderValue(ctx);
  if (value === undefined) return undefined;
  const trailer = new grpc.Metadata();
  trailer.set(CHANGES_HEADER, value);
  return trailer;
}

/** What a handler learns about its call besides the request message. */
export type CallContext = RequestContext;

/** Handlers that need an authenticated caller use this; the gateway always sends one. */
export function requireUser(ctx: CallContext): number {
  if (ctx.userId === undefined) throw new DomainError('Unauthenticated', 'No caller identity');
  return ctx.userId;
}

/**
 * Adapts a promise-returning use-case handler to grpc-js: runs it in the caller's request context,
 * maps domain errors through the error table (a database or object store out of reach as Unavailable, so every
 * service answers UNAVAILABLE → 503 for an outage), logs unexpected ones, and never calls back twice.
 */
export function unary<Req, Res>(
  logger: Logger,
  handler: (request: Req, ctx: CallContext) => Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const ctx: CallContext = {
      ...metadataToContext(call.metadata, newRequestId),
      changes: [],
      // grpc-js marks the call cancelled when the caller cancels or its deadline passes.
      callerGone: () => call.cancelled,
    };
    runWithContext(ctx, () => {
      handler(call.request, ctx).then(
        (response) => callback(null, response, changesTrailer(ctx)),
        (thrown: unknown) => {
          const error = unavailableIfUnreachable(thrown);
          if (!isDomainError(error)) logger.error({ err: error }, 'unexpected error in gRPC handler');
          else if (error.kind === 'Internal' || error.kind === 'Unavailable')
            logger.warn({ err: error }, error.message);
          callback(toGrpcError(error));
        },
      );
    });
  };
}
