import { EventConsumer, type EventConsumerOptions } from './index';
import type { Logger } from '@flowboard/service-kit';

export interface BackgroundConsumerOptions extends EventConsumerOptions {
  /** First and longest wait between attempts to join the group. */
  joinRetryMs?: { initial: number; max: number };
}

/** A consumer start stuck on an unreachable broker must not hold shutdown past the grace period. */
const START_ABANDON_MS = 5_000;

/**
 * Joins the consumer group in the background and keeps retrying with exponential back-off, so the service starts
 * and serves while Kafka is down; events wait in Kafka meanwhile. Used by every consumer (boards, files, notifier).
 */
export class BackgroundConsumer {
  private consumer: EventConsumer | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  private joining: Promise<void> | undefined;

  constructor(private readonly options: BackgroundConsumerOptions) {}

  start(): void {
    this.joining ??= this.join();
  }

  isReady(): boolean {
    return !this.stopping && this.consumer?.isReady() === true;
  }

  /** Partitions waiting out a failed message (see EventConsumer.retrying); none before the group is joined. */
  retrying(): ReturnType<EventConsumer['retrying']> {
    return this.consumer?.retrying() ?? [];
  }

  async stop(logger: Logger = this.options.logger): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.consumer?.stop().catch((err: unknown) => logger.warn({ err }, 'consumer stop failed'));
    if (this.joining)
      await Promise.race([this.joining, new Promise((r) => setTimeout(r, START_ABANDON_MS).unref())]);
  }

  private async join(): Promise<void> {
    const { joinRetryMs = { initial: 1_000, max: 30_000 }, ...consumerOptions } = this.options;
    const { logger, groupId, topics } = consumerOptions;
    for (let attempt = 0; !this.stopping; attempt++) {
      const candidate = new EventConsumer(consumerOptions);
      this.consumer = candidate;
      try {
        await candidate.start();
        if (this.stopping)
          await candidate.stop(); // stop() ran while we were connecting
        else logger.info({ topics, group: groupId }, 'consuming events');
        return;
      } catch (err) {
        await candidate.stop().catch(() => undefined);
        if (this.stopping) return;
        const delay = Math.min(joinRetryMs.max, joinRetryMs.initial * 2 ** attempt);
        logger.warn({ err, retryInMs: delay }, 'could not start the Kafka consumer; retrying');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  }
}
