import type { AttemptDelivery } from './attempt-delivery';
import type { ClaimedDelivery, DeliveryStore, UseCaseLogger } from './ports';

export interface DispatcherOptions {
  deliveries: Pick<DeliveryStore, 'claimDue'>;
  attempt: AttemptDelivery;
  /** Attempts in flight at most. */
  concurrency: number;
  /** How often to look for due deliveries when nothing wakes the loop sooner. */
  intervalMs: number;
  /** How long a claim holds its delivery: longer than any attempt can take. */
  leaseMs: number;
  logger: UseCaseLogger;
}

/** Waits after claim failures (database down): doubling from the interval up to this. */
const MAX_ERROR_BACKOFF_MS = 30_000;

/**
 * The delivery loop, one per replica: claims due deliveries up to its free slots and attempts them concurrently.
 * Replicas share the work through the claim (row locks with SKIP LOCKED, then a lease in the row), so no two attempt
 * the same delivery at once, and one that dies leaves its claims to the others when their leases end. Ingestion,
 * redelivery, pings and every finished attempt wake it (a finished attempt may unblock the subject's next
 * delivery); otherwise it polls every `intervalMs`, which is how it learns of other replicas' work and of retries
 * coming due.
 */
export class Dispatcher {
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Map<Promise<void>, AbortController>();
  private woken = false;
  private wakeUp: (() => void) | undefined;

  constructor(private readonly options: DispatcherOptions) {}

  start(): void {
    this.running = true;
    this.loop ??= this.run();
  }

  /** Look for due deliveries now. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Attempts in flight (tests, metrics). */
  busy(): number {
    return this.inFlight.size;
  }

  /**
   * Stops claiming, lets attempts in flight finish for `drainMs`, then aborts the rest without recording them:
   * their leases hand them to another replica, exactly as if this one had died. Resolves when none is left.
   */
  async stop(drainMs: number): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    const all = () => Promise.allSettled([...this.inFlight.keys()]);
    const drained = await Promise.race([
      all().then(() => true),
      new Promise<false>((resolve) => setTimeout(resolve, drainMs, false).unref()),
    ]);
    if (!drained) {
      this.options.logger.warn(
        { abandoned: this.inFlight.size },
        'shutting down: attempts still in flight are abandoned; other replicas retry them when their leases end',
      );
      for (const controller of this.inFlight.values()) controller.abort();
      await all();
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      this.woken = false;
      const free = this.options.concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          const claims = await this.options.deliveries.claimDue(free, this.options.leaseMs);
          if (failures > 0) this.options.logger.info({ failures }, 'claiming due deliveries again');
          failures = 0;
          for (const claim of claims) this.launch(claim);
          // A full batch: more may be due; go on at once while slots are free.
          if (claims.length === free && this.inFlight.size < this.options.concurrency) continue;
        } catch (err) {
          failures++;
          if (failures === 1) this.options.logger.warn({ err }, 'could not claim due deliveries; retrying');
        }
      }
      const wait =
        failures > 0
          ? Math.min(MAX_ERROR_BACKOFF_MS, this.options.intervalMs * 2 ** Math.min(failures, 10))
          : this.options.intervalMs;
      await this.sleep(wait);
    }
  }

  private launch(claim: ClaimedDelivery): void {
    const controller = new AbortController();
    const attempt: Promise<void> = this.options
      .attempt(claim, controller.signal)
      .catch((err: unknown) =>
        this.options.logger.warn(
          { err, deliveryId: claim.id, webhookId: claim.webhookId },
          'could not record a webhook attempt; the delivery is attempted again when its lease ends',
        ),
      )
      .finally(() => {
        this.inFlight.delete(attempt);
        this.wake();
      });
    this.inFlight.set(attempt, controller);
  }

  /** Waits `ms`, or less when woken (a wake-up that came before the wait counts). */
  private sleep(ms: number): Promise<void> {
    if (this.woken || !this.running) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        this.wakeUp = undefined;
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
