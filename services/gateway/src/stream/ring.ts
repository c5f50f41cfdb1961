import { Deque } from './deque';
import type { StreamEvent } from './event';

/** How much one partition's ring keeps: whichever bound is reached first evicts the oldest events. */
export interface RingLimits {
  maxEvents: number;
  maxBytes: number;
}

/**
 * What the ring can say about the events after an offset:
 * - `events`: every retained event of the project after it, in order (empty: nothing new yet); with a `limit`,
 *   `more` tells that there are further ones;
 * - `older`: the offset is older than the ring: events between it and `coveredFrom` may have been evicted, so
 *   they must come from Kafka (the HistoryReader port) before the ring can serve the rest;
 * - `ahead`: the offset is past the ring's head (another replica has read further): nothing yet, and the events up
 *   to it, when they arrive, are not the client's to receive again.
 */
export type RingRead =
  | { kind: 'events'; events: StreamEvent[]; more: boolean }
  | { kind: 'older'; coveredFrom: number }
  | { kind: 'ahead'; head: number };

/**
 * One partition's recent events in memory, in offset order, bounded by count and bytes. It holds every event of
 * the partition with an offset from `coveredFrom` to `head` (Kafka's offsets need not be contiguous: transaction
 * markers and compaction leave holes, so "every event in this range" is what the ring promises, not "every
 * offset"). It starts at the offset the consumer starts reading at; evicting the oldest event moves
 * `coveredFrom` past it. The newest event is always kept, however large, so a huge event never empties the ring.
 * Each project's events are indexed too, so reading one project's events does not scan the partition's.
 */
export class PartitionRing {
  private readonly all = new Deque<StreamEvent>();
  private readonly byProject = new Map<number, Deque<StreamEvent>>();
  private totalBytes = 0;
  private covered: number;
  private last: number;

  constructor(
    readonly partition: number,
    /** The offset the consumer starts reading this partition at: the ring covers everything from it on. */
    startOffset: number,
    private readonly limits: RingLimits,
  ) {
    if (!Number.isSafeInteger(startOffset) || startOffset < 0)
      throw new RangeError(`not an offset: ${startOffset}`);
    if (!(limits.maxEvents >= 1) || !(limits.maxBytes >= 0))
      throw new RangeError('ring limits must be positive');
    this.covered = startOffset;
    this.last = startOffset - 1;
  }

  /** Every event of the partition with an offset >= coveredFrom (and <= head) is in the ring. */
  get coveredFrom(): number {
    return this.covered;
  }

  /** The offset of the last event appended (or just before the start offset): `from=now` starts after it. */
  get head(): number {
    return this.last;
  }

  get size(): number {
    return this.all.length;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /**
   * Appends the partition's next event. An offset at or before the head is a redelivery (Kafka's consumers
   * deliver at least once: a rebalance or a reconnect can read a batch twice): ignored, and false says so.
   */
  append(event: StreamEvent): boolean {
    if (event.partition !== this.partition) {
      throw new RangeError(`event of partition ${event.partition} appended to ring ${this.partition}`);
    }
    if (event.offset <= this.last) return false;
    this.last = event.offset;
    this.all.push(event);
    let own = this.byProject.get(event.projectId);
    if (!own) this.byProject.set(event.projectId, (own = new Deque()));
    own.push(event);
    this.totalBytes += event.bytes;
    while (
      this.all.length > 1 &&
      (this.all.length > this.limits.maxEvents || this.totalBytes > this.limits.maxBytes)
    ) {
      this.evictOldest();
    }
    return true;
  }

  /** The retained events of `projectId` after `offset` (at most `limit` of them), or why the ring cannot say. */
  after(offset: number, projectId: number, limit = Infinity): RingRead {
    if (offset > this.last) return { kind: 'ahead', head: this.last };
    if (offset + 1 < this.covered) return { kind: 'older', coveredFrom: this.covered };
    const own = this.byProject.get(projectId);
    if (!own) return { kind: 'events', events: [], more: false };
    const events: StreamEvent[] = [];
    let at = own.firstAfter(offset, (event) => event.offset);
    for (; at < own.length && events.length < limit; at++) events.push(own.at(at));
    return { kind: 'events', events, more: at < own.length };
  }

  private evictOldest(): void {
    const oldest = this.all.shift()!;
    const own = this.byProject.get(oldest.projectId)!;
    own.shift();
    if (own.length === 0) this.byProject.delete(oldest.projectId);
    this.totalBytes -= oldest.bytes;
    this.covered = oldest.offset + 1;
  }
}
