import * as grpc from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import type Redis from 'ioredis';

interface HealthClient extends grpc.Client {
  Check(
    request: { service: string },
    options: grpc.CallOptions,
    callback: (error: grpc.ServiceError | null, response?: { status: string }) => void,
  ): grpc.ClientUnaryCall;
}

const HealthClientCtor = grpc.makeGenericClientConstructor(
  healthService as grpc.ServiceDefinition,
  'Health',
) as unknown as new (address: string, credentials: grpc.ChannelCredentials) => HealthClient;

const CHECK_TIMEOUT_MS = 1000;
const CACHE_MS = 1500;

export interface GrpcDependency {
  address: string;
  /** Fully qualified service name, as registered with the peer's health service. */
  service: string;
}

/**
 * `/readyz`: Redis answers PING and every gRPC peer reports SERVING on `grpc.health.v1.Health/Check`.
 * The answer is cached briefly so probes (and a probe storm) cost at most one round of checks per 1.5 s.
 */
export function createReadiness(redis: Redis, dependencies: GrpcDependency[]) {
  const peers = dependencies.map((d) => ({
    ...d,
    client: new HealthClientCtor(d.address, grpc.credentials.createInsecure()),
  }));
  let cached: { at: number; ready: Promise<boolean> } | undefined;
  let stopping = false;

  const redisOk = async () => {
    try {
      return (await redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  };
  const peerOk = (peer: (typeof peers)[number]) =>
    new Promise<boolean>((resolve) => {
      peer.client.Check({ service: peer.service }, { deadline: Date.now() + CHECK_TIMEOUT_MS }, (err, res) =>
        resolve(!err && res?.status === 'SERVING'),
      );
    });
  const checkAll = async () => (await Promise.all([redisOk(), ...peers.map(peerOk)])).every(Boolean);

  return {
    isReady(): Promise<boolean> {
      if (stopping) return Promise.resolve(false);
      const now = Date.now();
      if (!cached || now - cached.at > CACHE_MS) cached = { at: now, ready: checkAll() };
      return cached.ready;
    },
    /** Readiness turns false at once when shutdown begins, so no new traffic is routed here. */
    stop(): void {
      stopping = true;
      peers.forEach((p) => p.client.close());
    },
  };
}

export type Readiness = ReturnType<typeof createReadiness>;
