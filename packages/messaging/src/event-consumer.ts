import { Partitioners, type Consumer, type Kafka, type KafkaMessage, type Producer } from 'kafkajs';
import {
  extractTraceContext,
  gauge,
  inSpan,
  SpanKind,
  type Logger,
  type MetricsRegistry,
} from '@flowboard/service-kit';
import { FetchGathering, type FetchWait } from './fetch-gathering';
import { ensureTopics, type TopicSettings } from './kafka';

export interface IncomingMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer | null;
  headers: Record<string, string>;
}

/** Thrown by a handler for a message that can never succeed; the consumer dead-letters it instead of retrying. */
export class PermanentMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentMessageError';
  }
}

/**
 * Thrown by a handler for a message that must wait, not one that failed: another delivery of it is still under
 * way, say. Its partition pauses for `afterMs` (nothing after it is handled or committed meanwhile) and the message
 * is tried again then. Unlike a failure it does not count in `retrying()` (readiness): the wait is by design.
 */
export class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly afterMs: number,
  ) {
    super(message);
    this.name = 'RetryLaterError';
  }
}

export interface EventConsumerOptions {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  logger: Logger;
  /**
   * Throw to retry (the partition waits, nothing is skipped); throw PermanentMessageError to dead-letter, and
   * RetryLaterError to wait a known time.
   */
  handle(message: IncomingMessage): Promise<void>;
  /**
   * Sees each fetched batch's messages before any of them is handled, so that a handler can settle with one query
   * what it would otherwise ask once a message (whether anyone subscribes to their projects, say). A failure holds
   * the batch back like a failure of its first message. Every message handled was first seen by a lookAhead made
   * after it was fetched.
   */
  lookAhead?(messages: IncomingMessage[]): Promise<void>;
  /**
   * How long a partition waits before its failed message is tried again, by attempt (1, 2, ...); default
   * `exponentialBackoff()`.
   */
  retryDelayMs?: (attempt: number) => number;
  /** Gets `flowboard_kafka_consumer_lag` by group, topic and partition, and `flowboard_kafka_consumer_joined`. */
  metrics?: MetricsRegistry;
  /** How its topics and dead-letter topic are made at start (ensureTopics); default: created, 3 partitions. */
  topicSettings?: TopicSettings;
  /** How it gathers a trickle of messages (FetchWait, fetch-gathering.ts); default: it fetches again at once. */
  fetch?: FetchWait;
}

/** A lag series: its labels as the gauge has them. */
type LagLabels = { group: string; topic: string; partition: string };

/**
 * The lag series of `group` for partitions not in `assignment` (topic → partitions, as kafkajs' GROUP_JOIN gives
 * it): after a rebalance this process no longer consumes them, so their last values would only go stale.
 */
export function staleLagSeries(
  series: Array<{ labels: Partial<Record<string, string | number>> }>,
  group: string,
  assignment: Record<string, number[]>,
): LagLabels[] {
  const held = new Set(Object.entries(assignment).flatMap(([t, ps]) => ps.map((p) => `${t}/${p}`)));
  return series
    .map(({ labels }) => ({
      group: String(labels.group),
      topic: String(labels.topic),
      partition: String(labels.partition),
    }))
    .filter((l) => l.group === group && !held.has(`${l.topic}/${l.partition}`));
}

/** 500 ms, doubling, at most `maxMs` (default 30 s), with ±20 % jitter so replicas do not retry in step. */
export function exponentialBackoff(
  options: { initialMs?: number; maxMs?: number; random?: () => number } = {},
) {
  const { initialMs = 500, maxMs = 30_000, random = Math.random } = options;
  return (attempt: number): number => {
    const base = Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1));
    return Math.round(base * (0.8 + 0.4 * random()));
  };
}

/**
 * A partition held back after a failure (or told to wait): since when, how often it failed, and the timer that
 * resumes it.
 */
interface Backoff {
  attempts: number;
  since: number;
  /** Held back by a RetryLaterError, not a failure: not in retrying(). */
  waiting: boolean;
  until?: number;
  timer?: NodeJS.Timeout;
  resume?: () => void;
}

/**
 * A consumer group member that commits only after the handler succeeded (at-least-once), sends poison
 * messages to `<group>-dlq` with the reason in a header, and reports readiness from group membership.
 *
 * A failed message (not poison) pauses its partition: the message is not resolved, so nothing after it is
 * committed; kafkajs fetches the partition again from that message once the back-off is over (no crash, no
 * rejoin, other partitions go on). A dependency outage of hours therefore costs retries at `retryDelayMs`'
 * ceiling, never a lost or skipped message. A process that dies meanwhile leaves the offset at the failed
 * message, and whoever owns the partition next starts there.
 */
export class EventConsumer {
  readonly deadLetterTopic: string;
  private readonly consumer: Consumer;
  private readonly gathering: FetchGathering;
  private readonly dlq: Producer;
  /** stop() was called: a crash handled from now on restarts nothing. */
  private stopped = false;
  private readonly retryDelayMs: (attempt: number) => number;
  private readonly backoffs = new Map<string, Backoff>();
  private ready = false;
  private endedWith!: (error: unknown) => void;
  /**
   * Settles when this consumer will consume no more: with kafkajs's error when it crashed and will not restart
   * itself (it restarts only after errors it deems retriable; "Failed to find group coordinator" right after a
   * broker restart is not one), or with undefined after stop(). Whoever owns the consumer starts a new one.
   */
  readonly ended = new Promise<unknown>((resolve) => (this.endedWith = resolve));
  private readonly lag: ((topic: string, partition: number, lag: number) => void) | undefined;
  /** Drops the lag series of partitions this process no longer holds (the gauge is shared by its members). */
  private readonly forgetLag: (assignment: Record<string, number[]>) => Promise<void> = async () => undefined;
  private readonly showJoined: (member: boolean) => void = () => undefined;

  constructor(private readonly options: EventConsumerOptions) {
    if (options.metrics) {
      const lagGauge = gauge(options.metrics, {
        name: 'flowboard_kafka_consumer_lag',
        help: "Messages of a partition not yet handled by the group: the fetched batch's high watermark minus the next offset to handle",
        labelNames: ['group', 'topic', 'partition'],
      });
      this.lag = (topic, partition, lag) =>
        lagGauge.set({ group: options.groupId, topic, partition: String(partition) }, Math.max(0, lag));
      this.forgetLag = async (assignment) => {
        for (const labels of staleLagSeries((await lagGauge.get()).values, options.groupId, assignment))
          lagGauge.remove(labels);
      };
      // Lag shows a partition behind; this shows a consumer that is not consuming at all (alert on 0 for long).
      const joinedGauge = gauge(options.metrics, {
        name: 'flowboard_kafka_consumer_joined',
        help: 'Whether this process is a member of its consumer group (1) or not (0: joining, or crashed and rejoining)',
        labelNames: ['group'],
      });
      this.showJoined = (member) => joinedGauge.set({ group: options.groupId }, member ? 1 : 0);
      this.showJoined(false);
    }
    this.deadLetterTopic = `${options.groupId}-dlq`;
    this.retryDelayMs = options.retryDelayMs ?? exponentialBackoff();
    this.consumer = options.kafka.consumer({
      groupId: options.groupId,
      // kafkajs' default (true) lets a broker with auto.create.topics.enable make a missing topic with its own
      // defaults when we subscribe: topics are made by ensureTopics, with our settings, or not at all.
      allowAutoTopicCreation: false,
      retry: {
        retries: 10,
        maxRetryTime: 5_000,
        // After a crash kafkajs restarts the consumer on a timer. A crash still being handled when stop() runs
        // would set that timer after stop's disconnect cleared it, and the stopped consumer would restart for
        // ever (a test process that never exits; a service that reconnects after its shutdown): never once
        // stopped.
        restartOnFailure: async () => !this.stopped,
      },
      // A paused partition is fetched again only after the fetch in flight returns: keep that long poll short
      // (default 5 s), so a retry runs close to its back-off.
      maxWaitTimeInMs: 1_000,
    });
    this.gathering = new FetchGathering(this.consumer, options.fetch);
    this.dlq = options.kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false, // the dead-letter topic is ensured at start, like the others
    });
    const { GROUP_JOIN, CRASH, DISCONNECT, STOP } = this.consumer.events;
    this.consumer.on(GROUP_JOIN, (e) => {
      this.setMember(true);
      // Partitions that went to another member keep no series here (the new owner reports them).
      this.forgetLag(e.payload.memberAssignment).catch((err: unknown) =>
        options.logger.warn({ err }, 'could not drop the lag of partitions no longer held'),
      );
      // A rebalance starts every partition again from its committed offset (the failed message): resume what
      // we held back, so a partition assigned to us again is not left paused with no timer.
      for (const backoff of this.backoffs.values()) {
        clearTimeout(backoff.timer);
        backoff.resume?.();
      }
      this.backoffs.clear();
    });
    this.consumer.on(CRASH, (e) => {
      this.setMember(false);
      options.logger.error({ err: e.payload.error, restart: e.payload.restart }, 'consumer crashed');
      if (!e.payload.restart) this.endedWith(e.payload.error);
    });
    this.consumer.on(DISCONNECT, () => this.setMember(false));
    this.consumer.on(STOP, () => this.setMember(false));
  }

  /** Group membership as kafkajs reports it: readiness and the joined gauge. */
  private setMember(member: boolean): void {
    this.ready = member;
    this.showJoined(member);
  }

  /** A member of the group. */
  isReady(): boolean {
    return this.ready;
  }

  /**
   * Partitions waiting to retry a failed message, with the time of their first failure (epoch ms). A partition
   * waiting out a RetryLaterError is not among them (see waiting()).
   */
  retrying(): Array<{ partition: string; attempts: number; since: number }> {
    return [...this.backoffs]
      .filter(([, b]) => !b.waiting)
      .map(([partition, b]) => ({ partition, attempts: b.attempts, since: b.since }));
  }

  /** Partitions paused by a handler's RetryLaterError, until when (epoch ms). */
  waiting(): Array<{ partition: string; until: number }> {
    return [...this.backoffs]
      .filter(([, b]) => b.waiting)
      .map(([partition, b]) => ({ partition, until: b.until ?? b.since }));
  }

  async start(): Promise<void> {
    await ensureTopics(this.options.kafka, [...this.options.topics, this.deadLetterTopic], {
      ...this.options.topicSettings,
      logger: this.options.logger,
    });
    await this.dlq.connect();
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: this.options.topics, fromBeginning: true });
    await this.consumer.run({
      // We resolve each message ourselves, so a failure leaves it (and what follows) unresolved.
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, pause, isRunning, isStale }) => {
        const { topic, partition } = batch;
        const id = `${topic}/${partition}`;
        // Lag from the batch itself (no admin round trips): what remains from the message in hand to the high
        // watermark seen by this fetch. A partition held back keeps showing the lag at its failed message.
        const highWatermark = Number(batch.highWatermark);
        const first = batch.messages[0];
        if (first && this.options.lookAhead) {
          try {
            await this.options.lookAhead(batch.messages.map((m) => toIncoming(topic, partition, m)));
          } catch (err) {
            this.holdBack(id, pause(), first.offset, err);
            return;
          }
        }
        for (const message of batch.messages) {
          if (!isRunning() || isStale()) return;
          this.lag?.(topic, partition, highWatermark - Number(message.offset));
          try {
            await this.process(topic, partition, message);
          } catch (err) {
            this.holdBack(id, pause(), message.offset, err);
            return;
          }
          resolveOffset(message.offset);
          this.lag?.(topic, partition, highWatermark - Number(message.offset) - 1);
          this.recovered(id);
          await heartbeat();
        }
        await this.gathering.afterBatch(batch);
      },
    });
  }

  /**
   * handle, or dead-letter a PermanentMessageError; throws what should be retried (a DLQ send failure too). The
   * handler runs in a consumer span, child of the producer's context carried in the message's headers.
   */
  private async process(topic: string, partition: number, message: KafkaMessage): Promise<void> {
    const incoming = toIncoming(topic, partition, message);
    try {
      await inSpan(
        `process ${topic}`,
        {
          kind: SpanKind.CONSUMER,
          parent: extractTraceContext(incoming.headers),
          attributes: {
            'messaging.system': 'kafka',
            'messaging.operation.type': 'process',
            'messaging.destination.name': topic,
            'messaging.destination.partition.id': String(partition),
            'messaging.kafka.offset': Number(message.offset),
            'messaging.consumer.group.name': this.options.groupId,
          },
        },
        () => this.options.handle(incoming),
      );
    } catch (err) {
      if (!(err instanceof PermanentMessageError)) throw err;
      this.options.logger.warn(
        { topic, partition, offset: message.offset, reason: err.message },
        'dead-lettering',
      );
      await this.dlq.send({
        topic: this.deadLetterTopic,
        acks: -1,
        messages: [
          {
            key: message.key,
            value: message.value,
            headers: {
              ...message.headers,
              'x-dlq-reason': err.message,
              'x-dlq-source': `${topic}/${partition}/${message.offset}`,
            },
          },
        ],
      });
    }
  }

  private holdBack(id: string, resume: () => void, offset: string, err: unknown): void {
    const backoff = this.backoffs.get(id) ?? { attempts: 0, since: Date.now(), waiting: false };
    let delayMs: number;
    if (err instanceof RetryLaterError) {
      // A wait asked for, not a failure: the failure count and its back-off stay as they were.
      delayMs = Math.max(0, err.afterMs);
      backoff.waiting = backoff.attempts === 0;
      this.options.logger.info(
        { partition: id, offset, reason: err.message, retryInMs: delayMs },
        'message must wait; partition paused until then',
      );
    } else {
      backoff.attempts++;
      backoff.waiting = false;
      delayMs = this.retryDelayMs(backoff.attempts);
      this.options.logger.warn(
        { err, partition: id, offset, attempt: backoff.attempts, retryInMs: delayMs },
        'message failed; partition paused until the retry',
      );
    }
    backoff.until = Date.now() + delayMs;
    clearTimeout(backoff.timer);
    backoff.resume = resume;
    backoff.timer = setTimeout(resume, delayMs);
    this.backoffs.set(id, backoff);
  }

  private recovered(id: string): void {
    const backoff = this.backoffs.get(id);
    if (!backoff) return;
    clearTimeout(backoff.timer);
    this.backoffs.delete(id);
    this.options.logger.info(
      { partition: id, attempts: backoff.attempts, afterMs: Date.now() - backoff.since },
      backoff.waiting ? 'partition went on after its wait' : 'partition recovered',
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.setMember(false);
    this.endedWith(undefined);
    for (const backoff of this.backoffs.values()) clearTimeout(backoff.timer);
    this.backoffs.clear();
    await this.consumer.disconnect();
    await this.dlq.disconnect();
  }
}

function toIncoming(topic: string, partition: number, message: KafkaMessage): IncomingMessage {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(message.headers ?? {})) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? String(v[0]) : String(v);
  }
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString() ?? null,
    value: message.value,
    headers,
  };
}
