import * as grpc from '@grpc/grpc-js';

/** The one retry policy of every client: a call lost with its connection is tried again, quickly, twice at most. */
const RETRY_POLICY = {
  maxAttempts: 3,
  initialBackoff: '0.05s',
  maxBackoff: '0.5s',
  backoffMultiplier: 2,
  retryableStatusCodes: ['UNAVAILABLE'],
};

/** `flowboard.boards.v1.StoriesService`, from the methods' paths (`/<service>/<method>`). */
export function serviceNameOf(service: grpc.ServiceDefinition): string {
  const [first] = Object.values(service);
  return first?.path.split('/')[1] ?? '';
}

/**
 * The methods the proto declares safe to repeat, `option idempotency_level = NO_SIDE_EFFECTS` (reads) or
 * `IDEMPOTENT` (a write whose repetition changes nothing more): only those are retried. The proto says it once, for
 * every client; no list to keep in step.
 */
export function retryableMethods(service: grpc.ServiceDefinition): string[] {
  const methods = Object.values(service).filter((method) => {
    const level = (method as { options?: { idempotency_level?: unknown } }).options?.idempotency_level;
    return level === 'NO_SIDE_EFFECTS' || level === 'IDEMPOTENT';
  });
  return [...new Set(methods.map((method) => method.path.split('/')[2]!))].sort();
}

export interface GrpcChannelOptions {
  /** How long the channel may want a connection without getting one before it starts afresh (ReconnectingChannel). */
  connectTimeoutMs?: number;
}

/** In a cluster a connection takes milliseconds; two seconds without one means the attempt is lost, not slow. */
export const CONNECT_TIMEOUT_MS = 2_000;

/**
 * One channel to an upstream for the clients of all the services it serves (boards' six): one connection, and
 * its retries declared for every service's idempotent methods in the one service config. (grpc-js shares a
 * connection between clients only when their channel options are identical, and a service config per service
 * would make them differ: six clients, six connections.)
 *
 * Keepalive: a ping every 10 s, calls or not, and a connection whose ping isn't answered within 5 s is closed, so
 * a peer that stopped answering (a hung process, a node gone without a reset) loses its connection in seconds and
 * the channel connects again, through the Service, to a live replica. grpc-js servers (ours, of every release)
 * accept pings at any rate; a server that enforces a minimum interval answers GOAWAY `too_many_pings`, on which
 * grpc-js doubles the interval. A connection attempt that itself gets lost is ReconnectingChannel's part.
 */
export function createGrpcChannel(
  address: string,
  services: grpc.ServiceDefinition[],
  options: GrpcChannelOptions = {},
): grpc.ChannelInterface {
  const methodConfig = services.flatMap((service) => {
    const serviceName = serviceNameOf(service);
    const retryable = retryableMethods(service);
    return retryable.length
      ? [{ name: retryable.map((method) => ({ service: serviceName, method })), retryPolicy: RETRY_POLICY }]
      : [];
  });
  const channelOptions: grpc.ChannelOptions = {
    'grpc.service_config': JSON.stringify({ methodConfig }),
    'grpc.keepalive_time_ms': 10_000,
    'grpc.keepalive_timeout_ms': 5_000,
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 2_000,
    // Its own connections: a channel started afresh must not be handed the stuck attempt of the one it replaces
    // from grpc-js' process-wide pool (identical target and options share it).
    'grpc.use_local_subchannel_pool': 1,
  };
  return new ReconnectingChannel(
    () => new grpc.Channel(address, grpc.credentials.createInsecure(), channelOptions),
    options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
  );
}

/** Longer than any call's deadline: a replaced channel is closed once the calls it was given have ended. */
const DRAIN_MS = 60_000;

/**
 * A gRPC channel that starts afresh when a connection attempt is lost. grpc-js puts no time limit on an attempt
 * (grpc-node#1328: it leaves that to the operating system) and makes no other while one is under way. On a
 * cluster an attempt gets lost this way: a replica goes away, the SYN is sent to its address before kube-proxy
 * has caught up, and its retransmissions keep following that connection-tracking entry after a new replica is
 * up, about 127 s of kernel retries; a peer that accepts but never answers HTTP/2 SETTINGS holds one forever. The
 * cluster's isolation test saw it: a back end serving again for 100 s and more while a gateway's calls to it
 * still failed.
 *
 * So when the channel has wanted a connection (CONNECTING, or TRANSIENT_FAILURE while it keeps trying) for
 * `connectTimeoutMs` without getting one, new calls go to a new inner channel that connects at once, and the old
 * one is closed after DRAIN_MS, its calls having ended (each has a deadline) or been served; if its attempt was
 * only slow and connects first, it becomes the channel again and the newer one is retired instead. During a plain
 * outage (refused connections) that means a new channel every `connectTimeoutMs`: cheap, and nothing is lost,
 * since calls never sent are what the new one carries.
 */
export class ReconnectingChannel implements grpc.ChannelInterface {
  private current: grpc.ChannelInterface;
  private lostAttempt: NodeJS.Timeout | undefined;
  /** Channels given up as lost, each closed after DRAIN_MS unless its attempt turns out only slow (promote). */
  private readonly draining = new Map<grpc.ChannelInterface, NodeJS.Timeout>();
  private closed = false;
  /** How many times an inner channel was replaced (for tests and logs). */
  replacements = 0;

  constructor(
    private readonly open: () => grpc.ChannelInterface,
    private readonly connectTimeoutMs: number,
  ) {
    this.current = open();
    this.watch(this.current);
  }

  private watch(channel: grpc.ChannelInterface): void {
    const state = channel.getConnectivityState(false);
    if (this.closed || state === grpc.connectivityState.SHUTDOWN) return;
    // An attempt given up too soon (a loaded host can take longer than connectTimeoutMs) that connects after all
    // is used rather than wasted: otherwise connections slower than the timeout would never be used at all.
    if (
      channel !== this.current &&
      state === grpc.connectivityState.READY &&
      this.current.getConnectivityState(false) !== grpc.connectivityState.READY
    )
      this.promote(channel);
    if (channel === this.current) this.clock(state);
    channel.watchConnectivityState(state, Infinity, () => this.watch(channel));
  }

  /** Times how long the current channel has wanted a connection without one. */
  private clock(state: grpc.connectivityState): void {
    const wanting =
      state === grpc.connectivityState.CONNECTING || state === grpc.connectivityState.TRANSIENT_FAILURE;
    if (!wanting) this.stopClock();
    else if (!this.lostAttempt) {
      const channel = this.current;
      this.lostAttempt = setTimeout(() => this.replace(channel), this.connectTimeoutMs);
      this.lostAttempt.unref();
    }
  }

  private stopClock(): void {
    if (this.lostAttempt) clearTimeout(this.lostAttempt);
    this.lostAttempt = undefined;
  }

  private replace(stuck: grpc.ChannelInterface): void {
    this.lostAttempt = undefined;
    if (this.closed || stuck !== this.current) return;
    this.replacements += 1;
    this.current = this.open();
    this.retire(stuck);
    this.watch(this.current);
    this.current.getConnectivityState(true); // connect now: calls are waiting
  }

  private promote(channel: grpc.ChannelInterface): void {
    clearTimeout(this.draining.get(channel));
    this.draining.delete(channel);
    const previous = this.current;
    this.current = channel;
    this.stopClock();
    this.retire(previous);
  }

  private retire(channel: grpc.ChannelInterface): void {
    const drained = setTimeout(() => {
      this.draining.delete(channel);
      channel.close();
    }, DRAIN_MS);
    drained.unref();
    this.draining.set(channel, drained);
  }

  close(): void {
    this.closed = true;
    this.stopClock();
    for (const [channel, timer] of this.draining) {
      clearTimeout(timer);
      channel.close();
    }
    this.draining.clear();
    this.current.close();
  }

  getTarget(): string {
    return this.current.getTarget();
  }

  getConnectivityState(tryToConnect: boolean): grpc.connectivityState {
    return this.current.getConnectivityState(tryToConnect);
  }

  watchConnectivityState(
    currentState: grpc.connectivityState,
    deadline: Date | number,
    callback: (error?: Error) => void,
  ): void {
    this.current.watchConnectivityState(currentState, deadline, callback);
  }

  getChannelzRef(): ReturnType<grpc.ChannelInterface['getChannelzRef']> {
    return this.current.getChannelzRef();
  }

  createCall(
    ...args: Parameters<grpc.ChannelInterface['createCall']>
  ): ReturnType<grpc.ChannelInterface['createCall']> {
    return this.current.createCall(...args);
  }
}
