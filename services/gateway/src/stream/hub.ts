import { Deque } from './deque';
import type { StreamEvent } from './event';
import { partitionOf } from './partition';
import { encodePosition, type Position } from './position';
import { HistoryGoneError, type HistoryReader } from './ports';
import { PartitionRing, type RingLimits } from './ring';

/** How much one subscriber may have pending (received by the replica, not yet taken by its connection). */
export interface QueueLimits {
  maxEvents: number;
  maxBytes: number;
}

export interface HubOptions {
  /** The topic's partition count: a project's partition is `partitionOf(projectId, partitionCount)`. */
  partitionCount: number;
  ring: RingLimits;
  queue: QueueLimits;
  history: HistoryReader;
}

export const DEFAULT_RING_LIMITS: RingLimits = { maxEvents: 20_000, maxBytes: 16 * 1024 * 1024 };
export const DEFAULT_QUEUE_LIMITS: QueueLimits = { maxEvents: 1_000, maxBytes: 1024 * 1024 };

/**
 * Why a subscription ended. The hub closes with `slow` (its queue overflowed), `gone` (the history it needed was
 * deleted by retention) or `error` (the history could not be read); the route with `unsubscribed` (the client
 * left, a long-poll answered), `revoked` (access lost) or `shutdown`.
 */
export type CloseReason = 'slow' | 'gone' | 'error' | 'unsubscribed' | 'revoked' | 'shutdown';

export interface Closed {
  reason: CloseReason;
  /** The position after the last event taken: the client resumes from there. */
  position: string;
  error?: unknown;
}

export interface Delivery {
  /** In order; empty after a timeout, an abort, or when closed. */
  events: readonly StreamEvent[];
  /** The position after the last event taken so far (the subscription's start position before any). */
  position: string;
  closed?: Closed;
}

export interface NextOptions {
  /** At most this many events (default: all that are pending). */
  max?: number;
  /** Answer with no events after this long when nothing comes (long-poll's `wait`, SSE's heartbeat period). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface Subscription {
  readonly projectId: number;
  /** The position after the last event taken (what a client that got every event so far resumes from). */
  readonly position: string;
  readonly closed: Closed | undefined;
  /** Events waiting to be taken. */
  readonly pending: number;
  /**
   * Whether it still replays stored events (Kafka's history, the ring) rather than waiting for new ones: what follows
   * is there already, if not yet read.
   */
  readonly replaying: boolean;
  /**
   * The pending events, or, when there are none, the next ones as they come, the timeout, the abort or the close,
   * whichever is first. One call at a time.
   */
  next(options?: NextOptions): Promise<Delivery>;
  /** Ends it at once (any time, e.g. access revoked) and frees everything it holds; a waiting `next` answers. */
  close(reason?: CloseReason): void;
}

/**
 * - `foreign`: the position is of another partition than the project's (not this project's position: 400);
 * - `gone`: the position is older than the partition's retained history (410: re-read the board, start from now);
 * - `unavailable`: the replica does not read the project's partition yet, or Kafka could not say what it retains
 *   (503, retry).
 */
export type SubscribeResult =
  | { kind: 'subscribed'; subscription: Subscription }
  | { kind: 'foreign'; partition: number }
  | { kind: 'gone'; earliest: number }
  | { kind: 'unavailable'; error?: unknown };

export interface HubStats {
  subscribers: number;
  projects: number;
  /** Subscriptions closed because they could not keep up, since the start. */
  droppedSlow: number;
  /** Subscriptions refused or closed because their history was gone, since the start. */
  gone: number;
  /** Events dropped because they were not on their project's partition (a changed partition count?). */
  misplaced: number;
  /** Subscriptions reading Kafka's history right now. */
  historyReads: number;
  partitions: { partition: number; events: number; bytes: number; coveredFrom: number; head: number }[];
}

/**
 * The replica's change stream: one ring per partition, fed once by the replica's consumer (`startPartition`, then
 * `publish` for every event in partition order), and the subscriptions of each project, fed from it.
 *
 * A subscription is in one of three modes, and moves only forward through them:
 * - `history`: its position is older than the ring; it pulls the project's events from the HistoryReader, as fast
 *   as they are taken, up to the ring's oldest offset, then looks again (the ring may have moved meanwhile);
 * - `ring`: it copies the project's events from the ring into its queue as there is room;
 * - `live`: it has every retained event, and `publish` appends the project's new events to its queue; one that does
 *   not fit closes it as `slow`, with the position after the last event taken.
 * Every move to `ring` or `live` is decided synchronously against the ring, between two publishes, and the queue
 * only takes events after the last one it took (`enqueuedUpTo`): an event published during a replay is found in the
 * ring or pushed live, once either way.
 */
export class StreamHub {
  private readonly rings: (PartitionRing | undefined)[];
  private readonly byProject = new Map<number, Set<HubSubscription>>();
  private subscriberCount = 0;
  private shutDown = false;
  /** @internal counters the subscriptions update */
  readonly counters = { droppedSlow: 0, gone: 0, misplaced: 0, historyReads: 0 };

  constructor(readonly options: HubOptions) {
    const { partitionCount, queue } = options;
    if (!Number.isInteger(partitionCount) || partitionCount < 1) {
      throw new RangeError(`not a partition count: ${partitionCount}`);
    }
    if (!(queue.maxEvents >= 1) || !(queue.maxBytes >= 0))
      throw new RangeError('queue limits must be positive');
    this.rings = new Array<PartitionRing | undefined>(partitionCount).fill(undefined);
  }

  /** The consumer starts reading `partition` at `offset`: the ring covers the partition from there. Once. */
  startPartition(partition: number, offset: number): void {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.rings.length) {
      throw new RangeError(`no partition ${partition} of ${this.rings.length}`);
    }
    if (this.rings[partition]) throw new Error(`partition ${partition} already started`);
    this.rings[partition] = new PartitionRing(partition, offset, this.options.ring);
  }

  /** Every partition is read: every project can be served. */
  get ready(): boolean {
    return this.rings.every((ring) => ring !== undefined);
  }

  /**
   * The consumer's next event of a partition. Appended to the ring and to the queue of every live subscriber of
   * its project. False when it is not taken: a redelivery (offset at or before the ring's head), or an event off
   * its project's partition (counted as `misplaced`).
   */
  publish(event: StreamEvent): boolean {
    const ring = this.rings[event.partition];
    if (!ring) throw new Error(`partition ${event.partition} is not started`);
    if (partitionOf(event.projectId, this.rings.length) !== event.partition) {
      this.counters.misplaced++;
      return false;
    }
    if (!ring.append(event)) return false;
    const subscriptions = this.byProject.get(event.projectId);
    if (subscriptions) for (const subscription of subscriptions) subscription.offer(event);
    return true;
  }

  /** The position after the newest event of the project's partition this replica has (`from=now`). */
  headPosition(projectId: number): Position | undefined {
    const partition = partitionOf(projectId, this.rings.length);
    const ring = this.rings[partition];
    return ring && { partition, offset: ring.head };
  }

  /**
   * Subscribes to the project's events after `from` (`'now'`: after the newest one this replica has). Answers
   * `gone` without subscribing when the position is older than the ring and than Kafka's retention.
   */
  async subscribe(projectId: number, from: Position | 'now'): Promise<SubscribeResult> {
    if (this.shutDown) return { kind: 'unavailable' };
    const partition = partitionOf(projectId, this.rings.length);
    if (from !== 'now' && from.partition !== partition) return { kind: 'foreign', partition: from.partition };
    let ring = this.rings[partition];
    if (!ring) return { kind: 'unavailable' };
    const after = from === 'now' ? ring.head : from.offset;
    if (after + 1 < ring.coveredFrom) {
      let earliest: number;
      try {
        earliest = await this.options.history.earliestOffset(partition);
      } catch (error) {
        return { kind: 'unavailable', error };
      }
      if (after + 1 < earliest) {
        this.counters.gone++;
        return { kind: 'gone', earliest };
      }
      if (this.shutDown) return { kind: 'unavailable' };
      ring = this.rings[partition]!;
    }
    // From here on synchronous: registered before any further publish, started against the ring as it is now.
    const subscription = new HubSubscription(this, ring, projectId, after);
    let subscriptions = this.byProject.get(projectId);
    if (!subscriptions) this.byProject.set(projectId, (subscriptions = new Set()));
    subscriptions.add(subscription);
    this.subscriberCount++;
    subscription.start();
    return { kind: 'subscribed', subscription };
  }

  /** The project's open subscriptions on this replica. */
  subscribers(projectId: number): number {
    return this.byProject.get(projectId)?.size ?? 0;
  }

  stats(): HubStats {
    return {
      subscribers: this.subscriberCount,
      projects: this.byProject.size,
      ...this.counters,
      partitions: this.rings.flatMap((ring) =>
        ring
          ? [
              {
                partition: ring.partition,
                events: ring.size,
                bytes: ring.bytes,
                coveredFrom: ring.coveredFrom,
                head: ring.head,
              },
            ]
          : [],
      ),
    };
  }

  /** Closes every subscription (`shutdown`) and refuses new ones. */
  close(): void {
    this.shutDown = true;
    for (const subscriptions of [...this.byProject.values()]) {
      for (const subscription of [...subscriptions]) subscription.close('shutdown');
    }
  }

  /** @internal */
  unregister(subscription: HubSubscription): void {
    const subscriptions = this.byProject.get(subscription.projectId);
    if (!subscriptions?.delete(subscription)) return;
    this.subscriberCount--;
    if (subscriptions.size === 0) this.byProject.delete(subscription.projectId);
  }
}

type Mode = 'history' | 'ring' | 'live' | 'closed';

interface Waiter {
  resolve: (delivery: Delivery) => void;
  max: number;
  timer: NodeJS.Timeout | undefined;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

class HubSubscription implements Subscription {
  private mode: Mode = 'ring';

  get replaying(): boolean {
    return this.mode === 'history' || this.mode === 'ring';
  }

  private queue = new Deque<StreamEvent>();
  private queuedBytes = 0;
  /** The offset of the last event put in the queue (or of the start position): nothing at or before it again. */
  private enqueuedUpTo: number;
  private taken: string;
  private closedWith: Closed | undefined;
  private waiter: Waiter | undefined;
  private wakeScheduled = false;
  private room: { event: StreamEvent; resolve: () => void } | undefined;
  private history: AsyncIterator<StreamEvent> | undefined;

  constructor(
    private readonly hub: StreamHub,
    private readonly ring: PartitionRing,
    readonly projectId: number,
    after: number,
  ) {
    this.enqueuedUpTo = after;
    this.taken = encodePosition({ partition: ring.partition, offset: after });
  }

  get position(): string {
    return this.taken;
  }

  get closed(): Closed | undefined {
    return this.closedWith;
  }

  get pending(): number {
    return this.queue.length;
  }

  /** @internal First placement: from the ring, or from history when the position is older than it. */
  start(): void {
    this.fill();
  }

  /** @internal A newly published event of the project. */
  offer(event: StreamEvent): void {
    if (this.mode !== 'live' || event.offset <= this.enqueuedUpTo) return;
    if (!this.fits(event)) {
      this.close('slow');
      return;
    }
    this.enqueue(event);
  }

  next(options: NextOptions = {}): Promise<Delivery> {
    if (this.waiter) return Promise.reject(new Error('a next() of this subscription is already waiting'));
    const max = options.max ?? Infinity;
    if (!(max >= 1)) return Promise.reject(new RangeError(`next() takes at least one event, not ${max}`));
    if (this.queue.length > 0) return Promise.resolve(this.take(max));
    if (this.closedWith || options.signal?.aborted || options.timeoutMs === 0) {
      return Promise.resolve(this.delivery([]));
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve,
        max,
        timer: undefined,
        signal: options.signal,
        onAbort: () => this.settle([]),
      };
      if (options.timeoutMs !== undefined) waiter.timer = setTimeout(waiter.onAbort, options.timeoutMs);
      options.signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiter = waiter;
    });
  }

  close(reason: CloseReason = 'unsubscribed', error?: unknown): void {
    if (this.mode === 'closed') return;
    this.mode = 'closed';
    this.closedWith =
      error === undefined ? { reason, position: this.taken } : { reason, position: this.taken, error };
    this.queue = new Deque();
    this.queuedBytes = 0;
    this.hub.unregister(this);
    if (reason === 'slow') this.hub.counters.droppedSlow++;
    if (reason === 'gone') this.hub.counters.gone++;
    const history = this.history;
    this.history = undefined;
    if (history?.return) history.return().catch(() => undefined);
    this.room?.resolve();
    this.room = undefined;
    this.settle([]);
  }

  private delivery(events: StreamEvent[]): Delivery {
    return this.closedWith
      ? { events, position: this.taken, closed: this.closedWith }
      : { events, position: this.taken };
  }

  private fits(event: StreamEvent): boolean {
    const { maxEvents, maxBytes } = this.hub.options.queue;
    return (
      this.queue.length === 0 || (this.queue.length < maxEvents && this.queuedBytes + event.bytes <= maxBytes)
    );
  }

  private enqueue(event: StreamEvent): void {
    this.queue.push(event);
    this.queuedBytes += event.bytes;
    this.enqueuedUpTo = event.offset;
    if (this.waiter && !this.wakeScheduled) {
      // Woken in a microtask, so the events one consumer batch publishes go out together.
      this.wakeScheduled = true;
      queueMicrotask(() => {
        this.wakeScheduled = false;
        if (this.waiter && this.queue.length > 0) {
          const waiter = this.waiter;
          this.detach(waiter);
          waiter.resolve(this.take(waiter.max));
        }
      });
    }
  }

  private take(max: number): Delivery {
    const events: StreamEvent[] = [];
    while (events.length < max && this.queue.length > 0) {
      const event = this.queue.shift()!;
      this.queuedBytes -= event.bytes;
      events.push(event);
    }
    if (events.length > 0) this.taken = events[events.length - 1]!.position;
    if (this.mode === 'ring') this.fill();
    if (this.room && this.fits(this.room.event)) {
      const room = this.room;
      this.room = undefined;
      room.resolve();
    }
    return this.delivery(events);
  }

  /** Ring mode: copies the project's retained events into the queue while they fit; live once it has them all. */
  private fill(): void {
    while (this.mode === 'ring') {
      const room = this.hub.options.queue.maxEvents - this.queue.length;
      if (room <= 0) return;
      const read = this.ring.after(this.enqueuedUpTo, this.projectId, room);
      if (read.kind === 'older') {
        this.mode = 'history';
        void this.readHistory();
        return;
      }
      if (read.kind === 'ahead') {
        this.mode = 'live';
        return;
      }
      for (const event of read.events) {
        if (!this.fits(event)) return;
        this.enqueue(event);
      }
      if (!read.more) this.mode = 'live';
    }
  }

  /**
   * History mode: reads the project's events from Kafka up to the ring's oldest covered offset, as the queue has
   * room, round after round until the ring covers the rest; then ring mode.
   */
  private async readHistory(): Promise<void> {
    const { history } = this.hub.options;
    const partition = this.ring.partition;
    this.hub.counters.historyReads++;
    try {
      while (this.mode === 'history') {
        const upTo = this.ring.coveredFrom - 1;
        if (this.enqueuedUpTo >= upTo) {
          this.mode = 'ring';
          this.fill();
          return;
        }
        const earliest = await history.earliestOffset(partition);
        if (this.mode !== 'history') return;
        if (this.enqueuedUpTo + 1 < earliest) throw new HistoryGoneError(partition, earliest);
        const range = { partition, projectId: this.projectId, after: this.enqueuedUpTo, upTo };
        const iterator = history.read(range)[Symbol.asyncIterator]();
        this.history = iterator;
        for (;;) {
          const result = await iterator.next();
          if (this.mode !== 'history') return;
          if (result.done) break;
          const event = result.value;
          if (
            event.partition !== partition ||
            event.projectId !== this.projectId ||
            event.offset <= this.enqueuedUpTo ||
            event.offset > upTo
          ) {
            continue;
          }
          if (!this.fits(event)) {
            await new Promise<void>((resolve) => (this.room = { event, resolve }));
            if (this.mode !== 'history') return;
          }
          this.enqueue(event);
        }
        this.history = undefined;
        this.enqueuedUpTo = Math.max(this.enqueuedUpTo, upTo);
      }
    } catch (error) {
      if (this.mode === 'history') this.close(error instanceof HistoryGoneError ? 'gone' : 'error', error);
    } finally {
      this.hub.counters.historyReads--;
    }
  }

  private settle(events: StreamEvent[]): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.detach(waiter);
    waiter.resolve(this.delivery(events));
  }

  private detach(waiter: Waiter): void {
    this.waiter = undefined;
    if (waiter.timer) clearTimeout(waiter.timer);
    waiter.signal?.removeEventListener('abort', waiter.onAbort);
  }
}
