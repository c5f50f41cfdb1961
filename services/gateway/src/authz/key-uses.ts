import type { Logger } from '@flowboard/service-kit';
import type { MembershipClient } from '../clients/membership.client';

/**
 * When each key was last used (README "Scoped API keys": a user sees it per key), without a write per request:
 * each replica notes the keys it authenticates and sends membership one batch every `everyMs`
 * (`RecordApiKeyUse`, which never moves a time back), so a key's last use shows at most that late. A batch that
 * fails is merged into the next; on stop, the last one goes out.
 */
export class KeyUseRecorder {
  private pending = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly membership: Pick<MembershipClient, 'recordApiKeyUse'>,
    private readonly logger: Logger,
    private readonly everyMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  note(keyId: number): void {
    this.pending.set(keyId, this.now());
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.everyMs).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Sends what was noted since the last batch; one batch at a time. */
  async flush(): Promise<void> {
    await this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const uses = [...batch].map(([id, at]) => ({ api_key_id: id, use_time: new Date(at).toISOString() }));
    this.flushing = this.membership
      .recordApiKeyUse({ uses })
      .then(() => undefined)
      .catch((err: Error) => {
        // Put back what a newer note has not replaced; the next batch carries it.
        for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
        this.logger.warn(
          { err: { message: err.message }, keys: batch.size },
          'recording API key uses failed',
        );
      });
    await this.flushing;
  }
}
