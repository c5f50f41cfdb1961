import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from '@flowboard/service-kit';
import { FetchGathering, type FetchWait } from './fetch-gathering';

/** One message as a reader gets it: its place in the partition, key, value and the time Kafka stamped. */
export interface LogRecord {
  partition: number;
  offset: number;
  key: string | null;
  value: Buffer | null;
  timestamp: number;
}

/** A partition's retained range: `low` is the oldest offset still kept, `high` the next one to be written. */
export interface PartitionRange {
  partition: number;
  low: number;
  high: number;
}

export interface TopicTailOptions {
  kafka: Kafka;
  topic: string;
  /**
   * A group id no other process uses. The tail is its group's only member, so it holds every partition; it commits
   * nothing (where it reads is its own business, kept in memory), so the group leaves no state on the broker.
   */
  groupId: string;
  logger: Logger;
  /** The offset to start each partition at, from its retained range when the tail starts. */
  startAt(range: PartitionRange): number;
  /**
   * A partition's next messages, in offset order; awaited before that partition is fetched again. A throw is not a
   * skip: the consumer starts again from the first message not handled (better handle failures inside).
   */
  handle(partition: number, records: LogRecord[]): Promise<void>;
  /**
   * How many partitions' batches `handle` may work on at once (default 1: one after another). Each partition's own
   * batches stay in order whatever this is; more lets one partition's slow batch not hold the others back.
   */
  partitionsAtOnce?: number;
  /** Called once, when every partition has been read up to where it ended when the tail started (`caughtUp()`). */
  onCaughtUp?(): void;
  /** How it gathers a trickle of messages (FetchWait, fetch-gathering.ts); default: it fetches again at once. */
  fetch?: FetchWait;
}

/** Each partition's retained range, as the brokers say now. */
export async function partitionRanges(kafka: Kafka, topic: string): Promise<PartitionRange[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets
      .map((o) => ({ partition: o.partition, low: Number(o.low), high: Number(o.high) }))
      .sort((a, b) => a.partition - b.partition);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Reads every partition of a topic from chosen offsets on, for as long as it runs: a process's own view of the log
 * (the gateway's change stream reads it once per replica and fans it out), where a consumer group would share the
 * partitions out between replicas and move on by commits.
 *
 * Where it is is kept here, per partition (the offset after the last message handled), and set again whenever the
 * group is joined: a rejoin after a lost session would otherwise start from the reset policy (the log's end) and
 * skip what came meanwhile.
 */
export class TopicTail {
  private consumer: Consumer | undefined;
  private readonly next = new Map<number, number>();
  private readonly caughtUpTo = new Map<number, number>();
  private ranges: PartitionRange[] = [];
  private stopped = false;
  private restarts = 0;

  constructor(private readonly options: TopicTailOptions) {}

  /**
   * Starts at `startAt` of each partition; resolves once reading. Answers the ranges it started from: `high` is
   * where "caught up" is (see `caughtUp()`).
   */
  async start(): Promise<PartitionRange[]> {
    this.ranges = await partitionRanges(this.options.kafka, this.options.topic);
    for (const range of this.ranges) {
      this.next.set(range.partition, Math.min(range.high, Math.max(range.low, this.options.startAt(range))));
      this.caughtUpTo.set(range.partition, range.high);
    }
    await this.run();
    this.tellCaughtUp(); // nothing to read up to
    return this.ranges.map((r) => ({ ...r }));
  }

  private toldCaughtUp = false;
  private tellCaughtUp(): void {
    if (this.toldCaughtUp || !this.caughtUp()) return;
    this.toldCaughtUp = true;
    this.options.onCaughtUp?.();
  }

  /** Every partition read up to where it ended when the tail started. */
  caughtUp(): boolean {
    for (const [partition, high] of this.caughtUpTo) if ((this.next.get(partition) ?? 0) < high) return false;
    return this.caughtUpTo.size > 0;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.consumer?.disconnect();
  }

  private async run(): Promise<void> {
    const consumer = this.options.kafka.consumer({
      groupId: this.options.groupId,
      allowAutoTopicCreation: false,
      // A fetch returns as soon as one message is there; with none, after 500 ms, and the tail asks again.
      maxWaitTimeInMs: 500,
      // Never restarted once stopped (as EventConsumer: a crash handled during stop() would otherwise restart it).
      retry: { retries: 10, maxRetryTime: 5_000, restartOnFailure: async () => !this.stopped },
    });
    this.consumer = consumer;
    const gathering = new FetchGathering(consumer, this.options.fetch);
    consumer.on(consumer.events.GROUP_JOIN, () => this.seekAll(consumer));
    // kafkajs restarts itself only after errors it deems retriable ("Failed to find group coordinator" right after
    // a broker restart is not one): then a new consumer goes on from where this one was.
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || this.stopped) return;
      this.options.logger.warn({ err: payload.error }, 'topic reader crashed; starting a new one');
      this.runAgainLater(consumer);
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [this.options.topic], fromBeginning: false });
    await consumer.run({
      autoCommit: false,
      partitionsConsumedConcurrently: this.options.partitionsAtOnce ?? 1,
      eachBatchAutoResolve: true,
      eachBatch: async ({ batch, isRunning, isStale }) => {
        if (!isRunning() || isStale() || this.stopped) return;
        const { partition } = batch;
        const expected = this.next.get(partition) ?? 0;
        // A fetch in flight when a seek was made may still answer from before it.
        const records = batch.messages
          .map((m) => toRecord(partition, m))
          .filter((record) => record.offset >= expected);
        if (records.length === 0) return;
        await this.options.handle(partition, records);
        this.next.set(partition, records[records.length - 1]!.offset + 1);
        this.restarts = 0;
        this.tellCaughtUp();
        await gathering.afterBatch(batch);
      },
    });
    this.seekAll(consumer);
  }

  /** A new consumer after a back-off, going on from where the last one was; again until one runs. */
  private runAgainLater(crashed: Consumer): void {
    const waitMs = Math.min(30_000, 1_000 * 2 ** Math.min(this.restarts++, 5));
    setTimeout(() => {
      if (this.stopped) return;
      crashed
        .disconnect()
        .catch(() => undefined)
        .then(() => (this.stopped ? undefined : this.run()))
        .catch((err: unknown) => {
          this.options.logger.warn(
            { err, retryInMs: waitMs },
            'topic reader could not start again; retrying',
          );
          if (this.consumer) this.runAgainLater(this.consumer);
        });
    }, waitMs).unref();
  }

  private seekAll(consumer: Consumer): void {
    if (this.stopped) return;
    for (const [partition, offset] of this.next) {
      try {
        consumer.seek({ topic: this.options.topic, partition, offset: String(offset) });
      } catch (err) {
        // Before run(): run() seeks once it runs.
        this.options.logger.debug({ err, partition }, 'seek deferred until the consumer runs');
      }
    }
  }
}

/**
 * Reads `partition` of `topic` from offset `from` up to `upTo` (inclusive), lazily: a new batch is fetched only once
 * the caller took the last one. Its own short-lived consumer (a group of its own, every other partition paused). A
 * range that starts before the partition's retained history throws `OffsetGoneError`.
 */
export async function* readPartition(
  kafka: Kafka,
  options: { topic: string; partition: number; from: number; upTo: number; groupId: string; logger: Logger },
): AsyncGenerator<LogRecord> {
  const { topic, partition, from, upTo, groupId, logger } = options;
  if (upTo < from) return;
  const range = (await partitionRanges(kafka, topic)).find((r) => r.partition === partition);
  if (!range || from < range.low) throw new OffsetGoneError(partition, range?.low ?? 0);
  const end = Math.min(upTo, range.high - 1);
  if (end < from) return;

  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: 500 });
  // Batches handed from kafkajs' fetch loop to the reader one at a time: the loop waits until it is taken.
  let handOver: ((records: LogRecord[] | Error) => void) | undefined;
  let taken: (() => void) | undefined;
  const batches: Array<LogRecord[] | Error> = [];
  let wake: (() => void) | undefined;
  const push = (item: LogRecord[] | Error) => {
    batches.push(item);
    wake?.();
  };
  handOver = push;
  let next = from;
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: false });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const others = (payload.memberAssignment[topic] ?? []).filter((p) => p !== partition);
      if (others.length) consumer.pause([{ topic, partitions: others }]);
      consumer.seek({ topic, partition, offset: String(next) });
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) push(payload.error);
    });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat, isRunning, isStale }) => {
        if (batch.partition !== partition || !isRunning() || isStale()) return;
        const records = batch.messages.map((m) => toRecord(partition, m)).filter((r) => r.offset >= next);
        if (records.length === 0) return;
        if (records[0]!.offset > next && next < (await lowWatermark(kafka, topic, partition))) {
          handOver?.(new OffsetGoneError(partition, records[0]!.offset));
          return;
        }
        await new Promise<void>((resolve) => {
          taken = resolve;
          handOver?.(records);
        });
        await heartbeat();
      },
    });
    for (;;) {
      while (batches.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const item = batches.shift()!;
      if (item instanceof Error) throw item;
      for (const record of item) {
        if (record.offset > end) return;
        next = record.offset + 1;
        yield record;
      }
      if (next > end) return;
      const release = taken;
      taken = undefined;
      release?.();
    }
  } finally {
    handOver = undefined;
    taken?.();
    await consumer
      .disconnect()
      .catch((err: unknown) => logger.warn({ err }, 'history reader did not disconnect'));
  }
}

async function lowWatermark(kafka: Kafka, topic: string, partition: number): Promise<number> {
  return (await partitionRanges(kafka, topic)).find((r) => r.partition === partition)?.low ?? 0;
}

/** The offset asked for is older than the partition's retained history (deleted by retention). */
export class OffsetGoneError extends Error {
  constructor(
    readonly partition: number,
    readonly low: number,
  ) {
    super(`partition ${partition} retains offsets from ${low} on`);
    this.name = 'OffsetGoneError';
  }
}

function toRecord(partition: number, message: KafkaMessage): LogRecord {
  return {
    partition,
    offset: Number(message.offset),
    key: message.key?.toString() ?? null,
    value: message.value,
    timestamp: Number(message.timestamp),
  };
}
