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
}

export const overQuota = () =>
  new DomainError('PlanLimitExceeded', "The upload would exceed the account's file storage limit.", {
    problem: 'plan-limit',
  });

/**
 * The space one upload request holds while it streams. When the request has a Content-Length, its upper bound is
 * reserved whole if it fits, so concurrent uploads are decided up front, first come first served. That bound also
 * counts the parts' headers, so when it does not fit (near the limit) or there is none (a chunked body), the
 * reservation starts empty and grows ahead of the file bytes as they stream: a file that fits is accepted to the
 * byte. Bytes never pass `covered` unreserved, so the account cannot exceed its limit even if the upload is later
 * refused.
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
   * near the limit; PlanLimitExceeded (402) when even that does not fit.
   */
  async cover(total: number): Promise<void> {
    if (total <= this.covered) return;
    const missing = total - this.covered;
    const step = Math.min(this.options.growStepBytes, this.ceiling - this.covered);
    for (const bytes of step <= missing ? [missing] : [step, missing]) {
      const result = await this.quota.grow(this.id, this.account.limitBytes, bytes, this.options.ttlSeconds);
      if (result === 'ok') {
        this.covered += bytes;
        return;
      }
      if (result === 'gone') throw reservationLost();
    }
    throw overQuota();
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
