import { createHash, randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { DomainError, type Logger } from '@flowboard/service-kit';
import { open, seal } from './sealed';

/** An answer as it went out, to be replayed byte for byte. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface IdempotencySettings {
  /** How long a finished request's answer is kept for retries (the draft suggests at least 24 h). */
  ttlMs: number;
  /**
   * How long a request in progress holds its key without renewing it (it renews every third of this). A gateway
   * that dies mid-request frees the key when this runs out.
   */
  leaseMs: number;
}

/** What a request with an Idempotency-Key does, decided by the first request that used the key. */
export type Claim =
  | { kind: 'claimed'; lease: Lease }
  /** `bodyDigest`: what the first request's streamed body was, for the retry to compare its own with. */
  | { kind: 'replay'; response: StoredResponse; bodyDigest?: string }
  | { kind: 'in-progress' }
  /** The key was used for a different request (method, target or body). */
  | { kind: 'reused' };

/** The right to run a request under its key, until it completes (the answer is kept) or is released. */
export interface Lease {
  /** Keeps the answer; `bodyDigest` is a streamed body's, known only once it has gone by (uploads). */
  complete(response: StoredResponse, bodyDigest?: string): Promise<void>;
  /** Forgets the key, so a retry runs the request again (an answer that must not be replayed: 5xx). */
  release(): Promise<void>;
  /** Stops renewing: the request is over, and without an answer to keep the key frees itself with the lease. */
  settled(): void;
}

type Entry =
  | { state: 'running'; token: string; fingerprint: string }
  | { state: 'done'; fingerprint: string; response: string; bodyDigest?: string };

// Claims the key for a running request, or answers what it holds: one atomic round trip.
const CLAIM = `local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

// Each takes effect only while the key still holds this request's running entry (ARGV[1]): a lease that ran out
// and was claimed by a retry is no longer ours to renew, complete or release.
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
const COMPLETE = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

interface LeaseCommands {
  idempotencyClaim(key: string, running: string, leaseMs: number): Promise<string | null>;
  idempotencyRenew(key: string, running: string, leaseMs: number): Promise<number>;
  idempotencyComplete(key: string, running: string, done: string, ttlMs: number): Promise<number>;
  idempotencyRelease(key: string, running: string): Promise<number>;
}

/**
 * The answers of requests sent with an Idempotency-Key, in Redis so every gateway replica sees them and they
 * outlive a gateway's restart. Keys are per caller (`scope`); Redis holds only a hash of the key and the answer
 * sealed under it (sealed.ts).
 */
export class IdempotencyStore {
  private readonly redis: Redis & LeaseCommands;

  constructor(
    redis: Redis,
    private readonly settings: IdempotencySettings,
    private readonly logger: Logger,
  ) {
    redis.defineCommand('idempotencyClaim', { numberOfKeys: 1, lua: CLAIM });
    redis.defineCommand('idempotencyRenew', { numberOfKeys: 1, lua: RENEW });
    redis.defineCommand('idempotencyComplete', { numberOfKeys: 1, lua: COMPLETE });
    redis.defineCommand('idempotencyRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis = redis as Redis & LeaseCommands;
  }

  async claim(scope: string, idempotencyKey: string, fingerprint: string): Promise<Claim> {
    const key = `idempotency:${createHash('sha256').update(`${scope}\n${idempotencyKey}`).digest('hex')}`;
    const running = JSON.stringify({ state: 'running', token: randomUUID(), fingerprint } satisfies Entry);
    const held = await this.redis
      .idempotencyClaim(key, running, this.settings.leaseMs)
      .catch((err: unknown) => {
        throw new DomainError(
          'Unavailable',
          'Requests with an Idempotency-Key cannot be accepted right now.',
          {
            cause: err,
          },
        );
      });
    if (held === null) {
      return { kind: 'claimed', lease: this.lease(key, running, fingerprint, { idempotencyKey, scope }) };
    }
    const entry = JSON.parse(held) as Entry;
    if (entry.fingerprint !== fingerprint) return { kind: 'reused' };
    if (entry.state === 'running') return { kind: 'in-progress' };
    return {
      kind: 'replay',
      response: decode(open(entry.response, idempotencyKey, scope)),
      ...(entry.bodyDigest === undefined ? {} : { bodyDigest: entry.bodyDigest }),
    };
  }

  private lease(
    key: string,
    running: string,
    fingerprint: string,
    sealFor: { idempotencyKey: string; scope: string },
  ): Lease {
    const { leaseMs, ttlMs } = this.settings;
    const renewal = setInterval(() => {
      this.redis.idempotencyRenew(key, running, leaseMs).catch((err: Error) => {
        this.logger.warn({ err: { message: err.message } }, 'idempotency lease not renewed');
      });
    }, leaseMs / 3);
    renewal.unref();
    return {
      complete: async (response, bodyDigest) => {
        clearInterval(renewal);
        const done: Entry = {
          state: 'done',
          fingerprint,
          response: seal(encode(response), sealFor.idempotencyKey, sealFor.scope),
          ...(bodyDigest === undefined ? {} : { bodyDigest }),
        };
        // The answer has gone out either way; a retry after a failed store runs the request again (logged).
        const stored = await this.redis
          .idempotencyComplete(key, running, JSON.stringify(done), ttlMs)
          .catch((err: Error) => {
            this.logger.warn({ err: { message: err.message } }, 'idempotent answer not stored');
            return 1;
          });
        if (stored === 0) this.logger.warn('idempotency lease ran out before the request finished');
      },
      release: async () => {
        clearInterval(renewal);
        await this.redis.idempotencyRelease(key, running).catch((err: Error) => {
          this.logger.warn({ err: { message: err.message } }, 'idempotency key not released');
        });
      },
      settled: () => clearInterval(renewal),
    };
  }
}

function encode(response: StoredResponse): Buffer {
  const head = Buffer.from(JSON.stringify({ status: response.status, headers: response.headers }));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length);
  return Buffer.concat([length, head, response.body]);
}

function decode(bytes: Buffer): StoredResponse {
  const headLength = bytes.readUInt32BE(0);
  const head = JSON.parse(bytes.subarray(4, 4 + headLength).toString()) as Omit<StoredResponse, 'body'>;
  return { ...head, body: bytes.subarray(4 + headLength) };
}
