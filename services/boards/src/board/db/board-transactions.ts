import { isTransientConflict, withTransaction, type Pool, type PoolClient } from '@flowboard/pg-kit';
import type { Store } from '../application/store';
import { BOARD_LOCK_SQL, type BoardLocks } from './board-repository';
import { BoardWriteBatches, type TrackedWrite } from './board-write-batches';
import { countStatements, type CountedQueryable } from './savepoints';

export interface BoardTransactionsOptions {
  /** Hears how long each transaction that took its board's row lock held it, in seconds (see below). */
  onBoardLockReleased?: (heldSeconds: number) => void;
  /** At most this many stories' writes of a board share one transaction (board-write-batches.ts). */
  maxBoardBatch?: number;
  /** Hears the number of writes of each transaction `boardTransaction` ran. */
  onBoardBatch?: (writes: number) => void;
}

/**
 * A `Store` over `repositories`: bound to the pool for single reads, and inside `transaction` to one transaction's
 * client, with that transaction's board locks (`boardRepository(db, locks)` records the boards it locked, so a
 * second lock of the same board issues no statement).
 *
 * `boardTransaction` is `transaction` for writes that begin by taking their board's row lock: the writes waiting
 * for one board share a transaction (board-write-batches.ts).
 *
 * `onBoardLockReleased` hears how long each transaction that took its board's row lock held it (from the lock to
 * the transaction's end, in seconds): every write of a board waits for that lock, so its hold time bounds the
 * board's writes a second.
 */
export function withBoardTransactions<Repositories>(
  pool: Pool,
  /**
   * The repositories on one client. Each transaction's client counts its statements (savepoints.ts), once for all
   * of its repositories: the batches read whether a write wrote from it, and so does `Savepoints.mark`.
   */
  repositories: (db: CountedQueryable, locks?: BoardLocks) => Repositories,
  options: BoardTransactionsOptions = {},
): Store<Repositories> {
  /**
   * One transaction; `locks` records the boards it locked, and when the first lock was taken. With `boardId`, the
   * board's row lock is taken in BEGIN's round trip (every write of `boardTransaction` starts by taking it), so the
   * write's own `lock` needs no statement: one round trip less a transaction.
   */
  async function inTransaction<T>(
    work: (client: PoolClient, locks: BoardLocks) => Promise<T>,
    boardId?: number,
  ): Promise<T> {
    let lockedAt: bigint | undefined;
    const locks: BoardLocks = {
      held: new Set(),
      onLocked: () => void (lockedAt ??= process.hrtime.bigint()),
    };
    const withBegin = boardId === undefined ? undefined : boardLockStatement(boardId);
    try {
      return await withTransaction(
        pool,
        (client, begun) => {
          if (boardId !== undefined && begun?.rowCount === 1) {
            locks.held.add(boardId);
            locks.onLocked();
          }
          return work(client, locks);
        },
        { withBegin },
      );
    } finally {
      if (lockedAt !== undefined)
        options.onBoardLockReleased?.(Number(process.hrtime.bigint() - lockedAt) / 1e9);
    }
  }

  const transaction = <T>(work: (tx: Repositories) => Promise<T>): Promise<T> =>
    inTransaction((client, locks) => work(repositories(countStatements(client), locks)));

  const batches = new BoardWriteBatches<Repositories>(
    {
      alone: (projectId, work) =>
        inTransaction((client, locks) => work(repositories(countStatements(client), locks)), projectId),
      together: (projectId, run) =>
        inTransaction(
          (client, locks) =>
            run(() => trackedWrite(countStatements(client), (db) => repositories(db, locks))),
          projectId,
        ),
    },
    { maxBatch: options.maxBoardBatch ?? 32, onBatch: options.onBoardBatch, retryable: isTransientConflict },
  );

  return {
    ...repositories(countStatements(pool)),
    transaction,
    boardTransaction: <T>(
      projectId: number,
      work: (tx: Repositories) => Promise<T>,
      stories?: number,
    ): Promise<T> => batches.run(projectId, work, stories),
  };
}

/**
 * The board's row lock as the statement sent with BEGIN, which is not bound: the id goes in as a checked integer, or
 * nothing is sent and the write takes the lock itself.
 */
function boardLockStatement(projectId: number): string | undefined {
  return Number.isSafeInteger(projectId) && projectId > 0
    ? BOARD_LOCK_SQL.replace('$1', String(projectId))
    : undefined;
}

/** Repositories on one write's counted client, and whether the statements issued through them wrote, or failed. */
function trackedWrite<Tx>(db: CountedQueryable, bind: (db: CountedQueryable) => Tx): TrackedWrite<Tx> {
  return { tx: bind(db), wrote: () => db.statements.writes > 0, failed: () => db.statements.failures > 0 };
}
