import type { StreamEvent } from './event';

/** One read of a partition's history: the project's events with `after < offset <= upTo`, in offset order. */
export interface HistoryRange {
  partition: number;
  projectId: number;
  /** Exclusive: the offset of the last event the subscriber has. */
  after: number;
  /** Inclusive: the offset before the ring's oldest covered one. */
  upTo: number;
}

/**
 * Kafka's history of the topic, for positions older than the ring (../feed/change-feed.ts: a short-lived consumer
 * that seeks). The hub pulls from `read` only as fast as the subscriber takes events, and calls the iterator's `return`
 * when the subscription ends early: the adapter releases what it holds there. Events of other projects or outside
 * the range may be yielded; the hub skips them.
 */
export interface HistoryReader {
  /** The partition's earliest retained offset (Kafka's log start offset): older positions are gone. */
  earliestOffset(partition: number): Promise<number>;
  /** Throws `HistoryGoneError` when retention deleted part of the range while reading. */
  read(range: HistoryRange): AsyncIterable<StreamEvent>;
}

/** The history a position needs is no longer retained (the route: 410, re-read the board and start from now). */
export class HistoryGoneError extends Error {
  constructor(
    readonly partition: number,
    readonly earliest: number,
  ) {
    super(`partition ${partition}'s history starts at offset ${earliest}`);
    this.name = 'HistoryGoneError';
  }
}
