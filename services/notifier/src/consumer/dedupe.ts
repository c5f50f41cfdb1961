/**
 * Idempotency by event id: delivery is at-least-once (a redelivered message, or the outbox relay publishing a
 * row twice after a crash), and an invitee must get one e-mail per invite.
 *
 * A claim has two states. `pending` (short TTL) while the e-mail is being sent; `sent` (DEDUPE_TTL_SECONDS)
 * afterwards. A failed send deletes the claim, so the retry can claim again. If the process dies mid-send, the
 * pending claim simply expires and the redelivered message sends then; with a single "claimed" state (SET NX
 * with the long TTL up front) that e-mail would be lost for the whole TTL.
 */
export type ClaimResult = 'claimed' | 'done' | 'in-progress';

export interface DedupeStore {
  claim(eventId: string): Promise<ClaimResult>;
  /** The e-mail went out: remember that for the full TTL. */
  complete(eventId: string): Promise<void>;
  /** The send failed: forget the claim so a retry can send. */
  release(eventId: string): Promise<void>;
  /** How long (ms) another delivery's claim still holds: when a retry can claim it. 0 if it holds no more. */
  claimHeldForMs(eventId: string): Promise<number>;
}

/** The few Redis commands used, so tests can pass a fake and ioredis fits as is. */
export interface RedisCommands {
  set(key: string, value: string, ex: 'EX', seconds: number, nx: 'NX'): Promise<'OK' | null>;
  set(key: string, value: string, ex: 'EX', seconds: number): Promise<'OK' | null>;
  get(key: string): Promise<string | null>;
  del(key: string): Promise<number>;
  pttl(key: string): Promise<number>;
}

const PENDING = 'pending';
const SENT = 'sent';

export class RedisDedupeStore implements DedupeStore {
  constructor(
    private readonly redis: RedisCommands,
    private readonly options: { ttlSeconds: number; pendingTtlSeconds?: number },
  ) {}

  private key(eventId: string): string {
    return `notifier:invite:${eventId}`;
  }

  async claim(eventId: string): Promise<ClaimResult> {
    // Longer than a send can take (SMTP timeouts add up to well under a minute).
    const pendingTtl = this.options.pendingTtlSeconds ?? 120;
    if ((await this.redis.set(this.key(eventId), PENDING, 'EX', pendingTtl, 'NX')) === 'OK') return 'claimed';
    return (await this.redis.get(this.key(eventId))) === SENT ? 'done' : 'in-progress';
  }

  async complete(eventId: string): Promise<void> {
    await this.redis.set(this.key(eventId), SENT, 'EX', this.options.ttlSeconds);
  }

  async release(eventId: string): Promise<void> {
    await this.redis.del(this.key(eventId));
  }

  async claimHeldForMs(eventId: string): Promise<number> {
    return Math.max(0, await this.redis.pttl(this.key(eventId))); // -2: no key, -1: no expiry (never set so)
  }
}
