import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { resourceChangedV1 } from '@flowboard/events';
import {
  ensureTopicRetention,
  OffsetGoneError,
  partitionRanges,
  readPartition,
  TopicTail,
  type createKafka,
  type FetchWait,
} from '@flowboard/messaging';
import type { Logger } from '@flowboard/service-kit';
import {
  HistoryGoneError,
  StreamHub,
  type HistoryRange,
  type HistoryReader,
  type QueueLimits,
  type RingLimits,
  type StreamEvent,
} from '../stream';
import { ChangeRenderer, type NameLookup } from './render';

type Kafka = ReturnType<typeof createKafka>;

export interface ChangeFeedOptions {
  kafka: Kafka;
  names: NameLookup;
  logger: Logger;
  ring: RingLimits;
  queue: QueueLimits;
  /** Reads of Kafka's history (resumes older than the ring) at once; more wait their turn. */
  historyReads: number;
  /** How the live tail's fetches wait to gather changes (STREAM_FETCH_WAIT_MS). */
  fetch?: FetchWait;
  /** The topic's retention.ms, set at start when it differs; undefined leaves it alone. */
  retentionMs?: number;
  /** Hears, for each change fanned out live, the seconds since Kafka appended it (the feed's own delay). */
  onFannedOut?: (lagSeconds: number) => void;
}

/**
 * The replica's reader of `flowboard.resource-changed.v1` (docs/design.md, "The change stream"): every partition,
 * once, whatever the number of subscribers, into one StreamHub. At start each partition is read from as far back as
 * the ring holds (its newest `ring.maxEvents` events), so resumes of the recent past are served from memory on a
 * replica that just started too; the hub is offered to the routes only once that is read (`hub()` before: undefined,
 * the route answers 503). Older positions are read from Kafka's history, a few reads at a time.
 *
 * Kafka down at start: it retries in the background, and the stream alone answers 503 meanwhile.
 */
export class ChangeFeed {
  private tail: TopicTail | undefined;
  private servable: StreamHub | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private readonly renderer: ChangeRenderer;
  private readonly idPrefix = `gateway-stream-${os.hostname()}-${randomBytes(4).toString('hex')}`;

  constructor(private readonly options: ChangeFeedOptions) {
    this.renderer = new ChangeRenderer(options.names, options.logger, () => this.stopped);
  }

  /** The hub once the feed has read up to where Kafka was when it started; undefined before (and after stop). */
  hub(): StreamHub | undefined {
    return this.servable;
  }

  /** Starts in the background, retrying until Kafka answers. */
  start(): void {
    this.running ??= this.keepStarting();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.servable?.close();
    this.servable = undefined;
    await this.tail
      ?.stop()
      .catch((err: unknown) => this.options.logger.warn({ err }, 'change feed stop failed'));
  }

  private serve(hub: StreamHub): void {
    this.servable = hub;
    this.options.logger.info({ partitions: hub.options.partitionCount }, 'change stream serving');
  }

  /** How far back clients can resume is the topic's retention: set once per start, never fatal. */
  private async setRetention(topic: string): Promise<void> {
    const { retentionMs, kafka, logger } = this.options;
    if (retentionMs === undefined) return;
    try {
      const changed = await ensureTopicRetention(kafka, topic, retentionMs);
      if (changed) logger.info({ topic, retentionMs, before: changed.before }, 'change stream retention set');
    } catch (err) {
      logger.warn(
        { err, topic, retentionMs },
        'could not set the change stream retention; the topic keeps its own',
      );
    }
  }

  private async keepStarting(): Promise<void> {
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        await this.startOnce();
        return;
      } catch (err) {
        const waitMs = Math.min(30_000, 1_000 * 2 ** Math.min(attempt - 1, 5));
        this.options.logger.warn({ err, retryInMs: waitMs }, 'change feed could not start; retrying');
        await this.tail?.stop().catch(() => undefined);
        this.tail = undefined;
        await new Promise((r) => setTimeout(r, waitMs).unref());
      }
    }
  }

  private async startOnce(): Promise<void> {
    const { kafka, logger, ring } = this.options;
    const topic = resourceChangedV1.topic;
    const ranges = await partitionRanges(kafka, topic);
    if (ranges.length === 0) throw new Error(`topic ${topic} has no partitions (not created yet?)`);
    await this.setRetention(topic);
    const hub = new StreamHub({
      partitionCount: ranges.length,
      ring,
      queue: this.options.queue,
      history: new KafkaHistory(
        kafka,
        this.renderer,
        `${this.idPrefix}-history`,
        this.options.historyReads,
        logger,
      ),
    });
    // The ring's worth of the newest events: a replica that just started serves recent resumes from memory. Each
    // partition's ring covers from there before the first event can arrive.
    const starts = new Map(
      ranges.map(({ partition, low, high }) => [partition, Math.max(low, high - ring.maxEvents)]),
    );
    for (const [partition, offset] of starts) hub.startPartition(partition, offset);
    const tail = new TopicTail({
      kafka,
      topic,
      groupId: `${this.idPrefix}-tail`,
      logger,
      startAt: ({ partition, high }) => starts.get(partition) ?? high,
      // The hub keeps each partition apart, so partitions are rendered side by side: one waiting for names does not
      // hold back the others.
      partitionsAtOnce: ranges.length,
      fetch: this.options.fetch,
      handle: async (partition, records) => {
        for (const event of await this.renderer.render(partition, records)) hub.publish(event);
        if (this.servable !== hub) return; // reading what Kafka held at the start: no live delay to speak of
        const now = Date.now();
        for (const record of records) this.options.onFannedOut?.((now - record.timestamp) / 1000);
      },
      onCaughtUp: () => {
        if (!this.stopped) this.serve(hub);
      },
    });
    this.tail = tail;
    await tail.start();
  }
}

/**
 * Kafka's history for positions older than the ring: one short-lived reader of the project's partition per resume,
 * at most `maxReads` at once (each is a consumer of its own), the project's events rendered as the ring's are.
 */
class KafkaHistory implements HistoryReader {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private reads = 0;

  constructor(
    private readonly kafka: Kafka,
    private readonly renderer: ChangeRenderer,
    private readonly groupPrefix: string,
    private readonly maxReads: number,
    private readonly logger: Logger,
  ) {}

  async earliestOffset(partition: number): Promise<number> {
    const range = (await partitionRanges(this.kafka, resourceChangedV1.topic)).find(
      (r) => r.partition === partition,
    );
    if (!range) throw new Error(`no partition ${partition}`);
    return range.low;
  }

  async *read(range: HistoryRange): AsyncIterable<StreamEvent> {
    await this.turn();
    try {
      const records = readPartition(this.kafka, {
        topic: resourceChangedV1.topic,
        partition: range.partition,
        from: range.after + 1,
        upTo: range.upTo,
        groupId: `${this.groupPrefix}-${++this.reads}`,
        logger: this.logger,
      });
      for await (const record of records) {
        if (record.key !== null && record.key !== String(range.projectId)) continue; // another project's
        for (const event of await this.renderer.render(range.partition, [record])) yield event;
      }
    } catch (err) {
      if (err instanceof OffsetGoneError) throw new HistoryGoneError(err.partition, err.low);
      throw err;
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  private async turn(): Promise<void> {
    if (this.active >= this.maxReads) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
  }
}
