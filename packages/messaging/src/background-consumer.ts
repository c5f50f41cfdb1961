import { EventConsumer, type EventConsumerOptions } from './event-consumer';
import type { Logger } from '@flowboard/service-kit';

/** What BackgroundConsumer needs of one group member (EventConsumer; a stand-in in unit tests). */
export type GroupMember = Pick<EventConsumer, 'start' | 'stop' | 'isReady' | 'retrying' | 'ended'>;

export interface BackgroundConsumerOptions extends EventConsumerOptions {
  /** First and longest wait between attempts to join the group. */
  joinRetryMs?: { initial: number; max: number };
  /** Makes each group member; default `new EventConsumer(options)`. */
  createMember?: (options: EventConsumerOptions) => GroupMember;
}

/** A consumer start stuck on an unreachable broker must not hold shutdown past the grace period. */
const START_ABANDON_MS = 5_000;

/**
 * Keeps one member in the consumer group for as long as the service runs. It joins in the background and retries
 * with exponential back-off, so the service starts and serves while Kafka is down; events wait in Kafka meanwhile.
 * A member that kafkajs gave up on (a crash it does not restart) is replaced by a new one, the same way: without
 * this, a service would silently stop consuming until restarted. Used by every consumer (boards, files, notifier).
 */
export class BackgroundConsumer {
  private member: GroupMember | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: BackgroundConsumerOptions) {}

  start(): void {
    this.running ??= this.keepMember();
  }

  isReady(): boolean {
    return !this.stopping && this.member?.isReady() === true;
  }

  /** Partitions waiting out a failed message (see EventConsumer.retrying); none before the group is joined. */
  retrying(): ReturnType<EventConsumer['retrying']> {
    return this.member?.retrying() ?? [];
  }

  async stop(logger: Logger = this.options.logger): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.member?.stop().catch((err: unknown) => logger.warn({ err }, 'consumer stop failed'));
    if (this.running)
      await Promise.race([this.running, new Promise((r) => setTimeout(r, START_ABANDON_MS).unref())]);
  }

  private async keepMember(): Promise<void> {
    const {
      joinRetryMs = { initial: 1_000, max: 30_000 },
      createMember = (options) => new EventConsumer(options),
      ...memberOptions
    } = this.options;
    const { logger, groupId, topics } = memberOptions;
    for (let failures = 0; !this.stopping;) {
      const member = createMember(memberOptions);
      this.member = member;
      let failure: { err: unknown; msg: string };
      try {
        await member.start();
        if (this.stopping) {
          await member.stop(); // stop() ran while we were connecting
          return;
        }
        logger.info({ topics, group: groupId }, 'consuming events');
        failures = 0;
        const err = await member.ended;
        if (this.stopping) return; // stop() stopped it
        failure = { err, msg: 'the Kafka consumer gave up; joining the group again with a new one' };
      } catch (err) {
        failure = { err, msg: 'could not start the Kafka consumer; retrying' };
      }
      await member.stop().catch(() => undefined);
      if (this.stopping) return;
      const delay = Math.min(joinRetryMs.max, joinRetryMs.initial * 2 ** failures++);
      logger.warn({ err: failure.err, group: groupId, retryInMs: delay }, failure.msg);
      await this.sleep(delay);
    }
  }

  /** Waits `ms`, or less if stop() is called meanwhile. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
