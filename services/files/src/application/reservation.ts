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
  /** When the first reservation turns out short (no Content-Length), it grows by at least this much at a time. */
  growStepBytes: number;
}

export const overQuota = () =>
  new DomainError('PlanLimitExceeded', "The upload would exceed the account's file storage limit.", {
    problem: 'plan-limit',
  });

/**
 * The space one upload request holds while it streams. It starts as the request's upper bound (from
 * Content-Length) when known, so concurrent uploads are decided up front and whole, first come first served;
 * without one it starts empty and grows ahead of the bytes. Bytes never pass `covered` unreserved, so the account
 * cannot exceed its limit even if the upload is later refused.
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
  ) {}

  /** Reserves `bytes` or fails with PlanLimitExceeded (402). */
  static async open(
    quota: QuotaStore,
    account: UploadAccount,
    bytes: number,
    options: ReservationOptions,
    logger: WarnLogger,
  ): Promise<Reservation> {
    const id = await quota.reserve(account.accountId, account.limitBytes, bytes, options.ttlSeconds);
    if (id === undefined) throw overQuota();
    const reservation = new Reservation(quota, account, options, logger, id, bytes);
    reservation.startHeartbeat();
    return reservation;
  }

  /** Makes sure `total` bytes are reserved: grows by a step, or by exactly what is missing near the limit. */
  async cover(total: number): Promise<void> {
    if (total <= this.covered) return;
    const missing = total - this.covered;
    for (const bytes of missing < this.options.growStepBytes
      ? [this.options.growStepBytes, missing]
      : [missing]) {
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
