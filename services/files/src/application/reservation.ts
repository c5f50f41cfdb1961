import { DomainError } from '@flowboard/service-kit';
import type { QuotaStore, WarnLogger } from './ports';

/** The account an upload counts against, as the gateway resolved it from the project (trusted headers). */
export interface UploadAccount {
  accountId: number;
  limitBytes: number;
}

export interface ReservationOptions {
  /** How long a reservation lives without renewal; an upload renews it every third of that while it streams. */
  ttlSeconds: number;
  /**
   * A reservation short of the bytes (no Content-Length, or near the limit) grows by at least this much at a time,
   * never past the request's upper bound; when that does not fit, by exactly what is missing.
   */
  growStepBytes: number;
  /** Pauses between asking again while other uploads hold the room: doubling from the first to the second. */
  waitMs?: { initial: number; max: number };
}

/** Short: the room comes back when another upload of the account commits or fails. */
const WAIT_MS = { initial: 5, max: 50 };

export const overQuota = () =>
  new DomainError('PlanLimitExceeded', "The upload would exceed the account's file storage limit.", {
    problem: 'plan-limit',
  });

/**
 * The space one upload request holds while it streams. When the request has a Content-Length, its upper bound is
 * reserved whole if it fits, so concurrent uploads are decided up front, first come first served. That bound also
 * counts the parts' headers, so when it does not fit (near the limit) or there is none (a chunked body), the
 * reservation starts empty and grows ahead of the file bytes as they stream. No byte goes on to the store before
 * it is reserved, so the account's ledger never passes its limit, even for an upload later refused. Growing is
 * decided by domain/quota-growth.ts: refused only when the upload's own bytes do not fit beside what is stored;
 * room other uploads in flight hold is waited for, so a file that fits is accepted to the byte however many race
 * for it.
 */
export class Reservation {
  private heartbeat: NodeJS.Timeout | undefined;

  private constructor(
    private readonly quota: QuotaStore,
    private readonly account: UploadAccount,
    private readonly options: ReservationOptions,
    private readonly logger: WarnLogger,
    readonly id: number,
    private covered: number,
    /** No more is ever needed (the request's upper bound), so growing never reserves past it. */
    private readonly ceiling: number,
  ) {}

  /**
   * Reserves `maxBytes` (the request's upper bound) when it fits, else opens an empty reservation to grow as the
   * bytes arrive. Fails with PlanLimitExceeded (402) only when the account is already past its limit (an operator
   * lowered it).
   */
  static async open(
    quota: QuotaStore,
    account: UploadAccount,
    maxBytes: number | undefined,
    options: ReservationOptions,
    logger: WarnLogger,
  ): Promise<Reservation> {
    const { accountId, limitBytes } = account;
    let covered = maxBytes ?? 0;
    let id = await quota.reserve(accountId, limitBytes, covered, options.ttlSeconds);
    if (id === undefined && covered > 0) {
      covered = 0;
      id = await quota.reserve(accountId, limitBytes, 0, options.ttlSeconds);
    }
    if (id === undefined) throw overQuota();
    const reservation = new Reservation(quota, account, options, logger, id, covered, maxBytes ?? Infinity);
    reservation.startHeartbeat();
    return reservation;
  }

  /**
   * Makes sure `total` bytes are reserved: grows by a step (fewer round trips), or by exactly what is missing
   * near the limit, waiting while other uploads hold the room; PlanLimitExceeded (402) when the upload's bytes do
   * not fit beside what is stored. An upload whose room went to older ones (every upload of the account waited)
   * waits for all it needs again: the bytes it already sent stay in the store meanwhile.
   */
  async cover(total: number): Promise<void> {
    const pauses = this.options.waitMs ?? WAIT_MS;
    let pauseMs = pauses.initial;
    while (total > this.covered) {
      const wanted = Math.max(total, Math.min(this.covered + this.options.growStepBytes, this.ceiling));
      const result = await this.quota.grow(
        this.id,
        this.account.limitBytes,
        { needed: total, wanted, held: this.covered },
        this.options.ttlSeconds,
      );
      if (result.outcome === 'over-limit') throw overQuota();
      if (result.outcome === 'gone') throw reservationLost();
      this.covered = result.held;
      if (result.outcome === 'ok') return;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      pauseMs = Math.min(pauseMs * 2, pauses.max);
    }
  }

  /** Stops renewing (the commit has ended the reservation, or `release` is about to). */
  close(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  /** Gives the bytes back; never throws (an expired reservation is freed by the sweeper anyway). */
  async release(): Promise<void> {
    this.close();
    await this.quota.release(this.id).catch((err: unknown) => {
      this.logger.warn({ err, reservationId: this.id }, 'could not release a reservation; it will expire');
    });
  }

  private startHeartbeat(): void {
    const everyMs = Math.max(1_000, (this.options.ttlSeconds * 1000) / 3);
    this.heartbeat = setInterval(() => {
      // A reservation found gone is not acted on here: the commit checks it and refuses.
      this.quota
        .renew(this.id, this.options.ttlSeconds)
        .catch((err: unknown) =>
          this.logger.warn({ err, reservationId: this.id }, 'could not renew a reservation'),
        );
    }, everyMs);
    this.heartbeat.unref();
  }
}

const reservationLost = () =>
  new DomainError('Unavailable', 'The upload took too long and lost its storage reservation; try again.');
