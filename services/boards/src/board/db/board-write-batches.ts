import { AsyncResource } from 'node:async_hooks';
import { callerGone, changesMark, DomainError } from '@flowboard/service-kit';

/**
 * Gathers the writes waiting for one board into one transaction.
 *
 * Every write of a board takes the board's row lock and holds it to its commit, so a board's writes a second are
 * bounded by how long one transaction holds it: at 32 connections on one board the lock was held 96-104 % of the
 * time, about 3.4 ms per write, most of it round trips (BEGIN, the lock, each statement, COMMIT) and the queue of
 * PostgreSQL backends waiting for the row. Here the writes for a board queue in the process instead; while one
 * transaction runs, the next ones gather, and they run together in the next transaction, in arrival order: one
 * BEGIN, one lock, one COMMIT (one WAL flush) for all of them. A write that arrives to an idle board starts at
 * once, alone, exactly as before.
 *
 * All or nothing per write, as before:
 * - a write that fails before it has written anything (a validation, a missing story, a version precondition:
 *   only reads ran) is answered with its error and the others go on in the same transaction;
 * - a write that fails after writing (or on a failed statement, which aborts the transaction) rolls the whole
 *   transaction back, and then each write of it runs alone, in order, in a transaction of its own: each gets the
 *   answer it would have got alone, and no id or position is taken by a write that did not happen;
 * - a failure of BEGIN or COMMIT is every write's answer (after a failed COMMIT nobody knows whether it took
 *   effect, so nothing is run again).
 * A write's work may therefore run twice (once in a batch rolled back, once alone): it must not do anything but
 * the transaction's statements, which is what every use case's transaction body does.
 *
 * The same makes a transaction PostgreSQL ended to break a deadlock (or a serialization failure) safe to run
 * again: it wrote nothing. A write alone whose transaction ends so (`retryable`) runs again, up to
 * `RETRIES_ON_CONFLICT` times, instead of failing its caller with a 500. Deadlocks need another transaction taking
 * locks in another order: a migration running beside this release (pg-kit's migration-locks.ts), a future query.
 */

/** A write as the queue sees it: run on one transaction's repositories. */
export type BoardWrite<Tx, T> = (tx: Tx) => Promise<T>;

/** One transaction's statements, as the batch runner sees them: which kind each write of it issued. */
export interface TrackedWrite<Tx> {
  /** Repositories on the transaction, recording the statements this write issues. */
  tx: Tx;
  /** Whether the write issued a statement other than a SELECT (it may have changed something). */
  wrote(): boolean;
  /** Whether one of its statements failed (PostgreSQL then aborts the transaction). */
  failed(): boolean;
}

export interface BoardTransactions<Tx> {
  /**
   * One write in a transaction of its own (the path of a write that arrives to an idle board). Every transaction
   * here is about board `projectId`: it may take the board's lock as it begins.
   */
  alone<T>(projectId: number, work: BoardWrite<Tx, T>): Promise<T>;
  /**
   * Several writes in one transaction: `run` calls `track` once per write, in order, for that write's repositories
   * (all on the transaction, sharing its board lock); it resolves when the transaction has committed.
   */
  together(projectId: number, run: (track: () => TrackedWrite<Tx>) => Promise<void>): Promise<void>;
}

interface Waiting<Tx> {
  work: BoardWrite<Tx, unknown>;
  /** The stories it writes: what it weighs in a batch (a bulk write of 100 weighs 100). */
  stories: number;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

const callerGoneError = () =>
  new DomainError('DeadlineExceeded', 'The caller had gone before its write started; nothing was written.');

/** How many times a write alone runs again after PostgreSQL ended its transaction to break a deadlock. */
export const RETRIES_ON_CONFLICT = 2;

/** Thrown inside a batch to roll it back; never reaches a caller. */
class RollBackBatch extends Error {}

export class BoardWriteBatches<Tx> {
  private readonly queues = new Map<number, Waiting<Tx>[]>();

  constructor(
    private readonly transactions: BoardTransactions<Tx>,
    private readonly options: {
      /**
       * At most this many stories written in one transaction (bounds how long one transaction holds the board): a
       * write weighs the stories it writes, so a bulk write of 100 runs alone, while single writes gather. A write
       * heavier than the bound still runs, alone.
       */
      maxBatch: number;
      /** Hears each transaction's number of writes (1 for a write that ran alone). */
      onBatch?: (writes: number) => void;
      /** Whether a transaction ended with this error wrote nothing and may simply run again (a deadlock victim). */
      retryable?: (error: unknown) => boolean;
    },
  ) {}

  /**
   * Runs `work` in a transaction holding board `projectId`'s lock, gathered with that board's other writes. The
   * work runs in its caller's async context, not in that of the write whose arrival started the board's queue:
   * its request id and trace go with the events it writes to the outbox, and with its logs.
   */
  run<T>(projectId: number, work: BoardWrite<Tx, T>, stories = 1): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // A write whose batch rolled back runs again alone: the changes its first run recorded for its answer did not
      // happen, so each run starts from the record as it stood before the first.
      const changes = changesMark();
      const attempt: BoardWrite<Tx, T> = (tx) => {
        // A write whose caller has gone by its turn (its deadline passed while it queued behind the board's other
        // writes) is not started: nobody would read its answer, and running it would only lengthen the queue for
        // the writes whose callers still wait. Thrown before any statement, so it costs the batch nothing.
        if (callerGone()) return Promise.reject(callerGoneError());
        changes.undo();
        return work(tx);
      };
      const waiting = { work: AsyncResource.bind(attempt), stories, resolve, reject } as Waiting<Tx>;
      const queue = this.queues.get(projectId);
      if (queue) {
        queue.push(waiting);
        return;
      }
      this.queues.set(projectId, [waiting]);
      void this.drain(projectId);
    });
  }

  /** Runs the board's queue, batch after batch, until it is empty; the first write starts at once. */
  private async drain(projectId: number): Promise<void> {
    const queue = this.queues.get(projectId)!;
    while (queue.length > 0) {
      const batch = queue.splice(0, this.nextBatchLength(queue));
      this.options.onBatch?.(batch.length);
      if (batch.length === 1) await this.runAlone(projectId, batch[0]!);
      else await this.runTogether(projectId, batch);
    }
    this.queues.delete(projectId);
  }

  /** How many of the queue's first writes go in the next transaction: at least one, within `maxBatch` stories. */
  private nextBatchLength(queue: readonly Waiting<Tx>[]): number {
    let stories = queue[0]!.stories;
    let length = 1;
    while (length < queue.length && stories + queue[length]!.stories <= this.options.maxBatch)
      stories += queue[length++]!.stories;
    return length;
  }

  private async runAlone(projectId: number, waiting: Waiting<Tx>): Promise<void> {
    for (let retries = 0; ; retries++) {
      try {
        return waiting.resolve(await this.transactions.alone(projectId, waiting.work));
      } catch (error) {
        if (retries < RETRIES_ON_CONFLICT && this.options.retryable?.(error)) continue;
        return waiting.reject(error);
      }
    }
  }

  private async runTogether(projectId: number, batch: Waiting<Tx>[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      await this.transactions.together(projectId, async (track) => {
        for (const waiting of batch) {
          const write = track();
          try {
            outcomes.push({ ok: true, value: await waiting.work(write.tx) });
          } catch (error) {
            if (write.wrote() || write.failed()) throw new RollBackBatch();
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      if (!(error instanceof RollBackBatch)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      for (const waiting of batch) {
        this.options.onBatch?.(1);
        await this.runAlone(projectId, waiting);
      }
      return;
    }
    batch.forEach((waiting, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) waiting.resolve(outcome.value);
      else waiting.reject(outcome.error);
    });
  }
}
