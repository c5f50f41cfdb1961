/**
 * The transaction port every slice's use cases share; it is the board's, since `boardTransaction` (a write under
 * the board's lock, batched with that board's other writes) is. A slice names the repositories it reaches (its
 * own and those of other aggregates it writes with in one transaction, e.g. a new story's history rows); the
 * store binds them to the pool for single reads, and `transaction` runs several writes atomically over the same
 * repositories bound to one transaction. board/db/board-transactions.ts implements it; src/db/boards-store.ts
 * builds one store holding every slice's repositories, which satisfies each slice's narrower `Store<...>`.
 */
export type Store<Repositories> = Repositories & {
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /**
   * `transaction` for a write that begins by locking board `projectId`'s row: the writes waiting for one board
   * may share one transaction, each all or nothing as alone. `work` must do nothing but its statements (it may
   * run twice: once in a shared transaction that was rolled back, then alone). `stories`: how many stories it
   * writes (1 unless said; a bulk write says its count), which bounds what shares its transaction.
   */
  boardTransaction<T>(
    projectId: number,
    work: (tx: Repositories) => Promise<T>,
    stories?: number,
  ): Promise<T>;
};
