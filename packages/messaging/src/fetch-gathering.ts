import type { Batch, Consumer } from 'kafkajs';

/**
 * How a consumer gathers messages that come in a trickle. Without a wait, each fetch returns as soon as a message is
 * there, so a steady trickle costs a fetch per message, in the broker and in the consumer. With `maxWaitMs`, once a
 * batch has emptied its partition the consumer fetches again only `maxWaitMs` after its last fetch began: what came
 * meanwhile arrives as one batch, each message up to that much later, and the first message after a quiet spell at
 * once.
 *
 * The wait is the consumer's, not the broker's (`minBytes` with a short `maxWaitTimeInMs`): a broker-side wait holds
 * an idle consumer's fetch for only that long too, so an idle consumer asked 1000/maxWaitMs times a second (the
 * gateway's tail, at 25 ms: 40 fetches a second, about 35 CPU ms a second of a broker's, for nothing). Here an idle
 * consumer makes one fetch per long poll.
 */
export interface FetchWait {
  /** 0 (the default): a consumer fetches again as soon as it has handled a batch. */
  maxWaitMs: number;
}

/**
 * `FetchWait` for one kafkajs consumer: `afterBatch` is awaited at the end of each batch handled, before kafkajs
 * fetches again (it fetches once every batch of the last fetch is handled).
 */
export class FetchGathering {
  private fetchStartedAt = 0;
  private readonly waitMs: number;

  constructor(
    consumer: Pick<Consumer, 'on' | 'events'>,
    wait: FetchWait | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.waitMs = wait?.maxWaitMs ?? 0;
    // With several brokers this is the latest of their fetchers' starts: a wait is then at most maxWaitMs anyway.
    if (this.waitMs > 0)
      consumer.on(consumer.events.FETCH_START, () => void (this.fetchStartedAt = this.now()));
  }

  /** How long to wait after `batch` before the next fetch: none while the partition has more to read. */
  delayAfter(batch: Pick<Batch, 'offsetLag'>): number {
    if (this.waitMs <= 0 || batch.offsetLag() !== '0') return 0;
    return Math.max(0, this.fetchStartedAt + this.waitMs - this.now());
  }

  async afterBatch(batch: Pick<Batch, 'offsetLag'>): Promise<void> {
    const delay = this.delayAfter(batch);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
