import * as grpc from '@grpc/grpc-js';
import { CHANGES_HEADER, currentContext, type RequestContext } from '../context';
import { fromGrpcError, isDomainError } from '../errors';
import type { MetricsRegistry } from '../metrics';
import type { Breaker } from './breaker';
import { createGrpcChannel, serviceNameOf } from './channel';
import { contextToMetadata } from './metadata';
import { observeClient, startClientCall } from './observe';

type ClientConstructor<C extends grpc.Client> = (new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
) => C) & { service: grpc.ServiceDefinition };

export interface GrpcClientOptions {
  /** Where call counts and latencies go (`flowboard_grpc_client_*`); spans are made either way. */
  metrics?: MetricsRegistry;
  /**
   * The channel to call on, shared with the other clients of the same upstream (createGrpcChannel, or an
   * Upstream's): one connection, one health probe, one breaker. Without it the client makes its own.
   */
  channel?: grpc.ChannelInterface;
  /** Calls go through it: refused at once while the upstream is known down (upstream.ts). */
  breaker?: Breaker;
}

/**
 * One long-lived client per upstream, created at boot. Retries are declared in the channel's service config, for
 * the methods the proto marks idempotent (`retryableMethods`).
 *
 * Every call waits for a connection (waitForReady, set per call by unaryCall: grpc-js takes it from the call's
 * options, not from the service config), within its deadline, instead of failing at once while the channel reconnects:
 * when a replica behind the upstream's Service goes away (a rollout, a crash), the channel connects
 * again, and the Service sends it to a live replica, within a few hundred milliseconds. A call that waited was never
 * sent, so waiting is safe for writes too; only a call in flight on the lost connection fails, and the idempotent ones
 * among those are retried. The short reconnect back-off keeps that wait short. An upstream that is down altogether
 * would cost every caller the deadline (504) that way: a client given a `breaker` (an Upstream's, upstream.ts)
 * refuses calls at once (503) while the upstream is known down, and the calls already waiting when it learns so
 * are cancelled and answered 503 too.
 */
export function createGrpcClient<C extends grpc.Client>(
  Ctor: ClientConstructor<C>,
  address: string,
  options: GrpcClientOptions = {},
): C {
  const channel = options.channel ?? createGrpcChannel(address, [Ctor.service]);
  const client = new Ctor(address, grpc.credentials.createInsecure(), { channelOverride: channel });
  observeClient(client, serviceNameOf(Ctor.service), options.metrics);
  if (options.breaker) breakers.set(client, options.breaker);
  return client;
}

/** Which breaker a client's calls go through (createGrpcClient's `breaker`). */
const breakers = new WeakMap<grpc.Client, Breaker>();

/** The calls in flight per breaker, cancelled when it opens: they would only wait out their deadline. */
const inFlight = new WeakMap<Breaker, Set<grpc.ClientUnaryCall>>();

function callsOf(breaker: Breaker): Set<grpc.ClientUnaryCall> {
  let calls = inFlight.get(breaker);
  if (!calls) {
    const created = new Set<grpc.ClientUnaryCall>();
    breaker.onStateChange((state) => {
      if (state !== 'open') return;
      for (const call of created) call.cancel();
      created.clear();
    });
    inFlight.set(breaker, created);
    calls = created;
  }
  return calls;
}

/** Failures that are the upstream's, not answers it chose: unreachable, or silent until the deadline. */
export const isTransportFailure = (error: unknown): boolean =>
  isDomainError(error) && (error.kind === 'Unavailable' || error.kind === 'DeadlineExceeded');

// Generated clients overload each method; a conditional type reads the last overload, `(argument, callback)`.
type UnaryRequest<F> = F extends (
  argument: infer Req,
  callback: grpc.requestCallback<infer _Res>,
) => grpc.ClientUnaryCall
  ? Req
  : never;
type UnaryResponse<F> = F extends (
  argument: infer _Req,
  callback: grpc.requestCallback<infer Res>,
) => grpc.ClientUnaryCall
  ? Res
  : never;

export interface UnaryCallOptions {
  /** Every call has a deadline. */
  deadlineMs: number;
  /** Defaults to the current request's context (request id, caller). */
  context?: RequestContext;
}

/**
 * Calls a unary RPC with a deadline and the caller's identity and trace context in metadata; failures arrive as
 * DomainErrors.
 */
export function unaryCall<C extends grpc.Client, K extends keyof C & string>(
  client: C,
  method: K,
  request: UnaryRequest<C[K]>,
  options: UnaryCallOptions,
): Promise<UnaryResponse<C[K]>> {
  const breaker = breakers.get(client);
  if (!breaker) return sendUnary(client, method, request, options);
  return breaker.run(() => sendUnary(client, method, request, options, breaker), isTransportFailure);
}

function sendUnary<C extends grpc.Client, K extends keyof C & string>(
  client: C,
  method: K,
  request: UnaryRequest<C[K]>,
  options: UnaryCallOptions,
  breaker?: Breaker,
): Promise<UnaryResponse<C[K]>> {
  const context = options.context ?? currentContext();
  const metadata = contextToMetadata(context);
  metadata.setOptions({ waitForReady: true }); // see createGrpcClient
  const fn = client[method] as unknown as (
    argument: unknown,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<unknown>,
  ) => grpc.ClientUnaryCall;
  const finish = startClientCall(client, method, metadata);
  const calls = breaker ? callsOf(breaker) : undefined;
  return new Promise((resolve, reject) => {
    const call = fn.call(
      client,
      request,
      metadata,
      { deadline: Date.now() + options.deadlineMs },
      (error, response) => {
        calls?.delete(call);
        finish(error ? (error.code ?? grpc.status.UNKNOWN) : grpc.status.OK);
        // Cancelled by us because the breaker opened (see callsOf): the upstream is down.
        if (error?.code === grpc.status.CANCELLED && breaker) reject(breaker.unavailable(error));
        else if (error) reject(fromGrpcError(error));
        else resolve(response as UnaryResponse<C[K]>);
      },
    );
    calls?.add(call);
    // The changes the upstream's write made, for the caller's own answer. grpc-js emits `status` right after the
    // callback, in the same turn, so they are recorded before the caller's `await` resumes.
    if (context?.changes) {
      call.on('status', (status: grpc.StatusObject) => {
        const named = status.metadata?.get(CHANGES_HEADER)[0]?.toString();
        if (status.code === grpc.status.OK && named) context.changes?.push(...named.split(','));
      });
    }
  });
}

/**
 * A client as its callers use it: one promise-returning function per RPC of the proto, named like the RPC with a
 * lower-case first letter (`GetStory` → `getStory`), taking the request message and resolving to the response;
 * every call has the deadline of `options`, failures arrive as DomainErrors. Derived from the service definition, so
 * a new RPC needs no wrapper.
 */
export type DerivedClient<C extends grpc.Client> = {
  [
    K in keyof C & string as K extends Uncapitalize<K>
      ? never
      : UnaryRequest<C[K]> extends never
        ? never
        : Uncapitalize<K>
  ]: (request: UnaryRequest<C[K]>) => Promise<UnaryResponse<C[K]>>;
} & { close(): void };

export function deriveClient<C extends grpc.Client>(
  Ctor: ClientConstructor<C>,
  address: string,
  options: GrpcClientOptions & UnaryCallOptions,
): DerivedClient<C> {
  const client = createGrpcClient(Ctor, address, options);
  // A shared channel is closed by its owner (the Upstream), not by each client on it.
  const calls: Record<string, unknown> = { close: () => (options.channel ? undefined : client.close()) };
  for (const method of Object.values(Ctor.service)) {
    if (method.requestStream || method.responseStream) continue;
    const name = method.path.split('/')[2]!;
    calls[name.charAt(0).toLowerCase() + name.slice(1)] = (request: never) =>
      unaryCall(client, name as keyof C & string, request, { deadlineMs: options.deadlineMs });
  }
  return calls as DerivedClient<C>;
}
