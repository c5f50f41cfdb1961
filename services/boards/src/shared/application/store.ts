/**
 * The transaction port every slice's use cases share. A slice names the repositories it reaches (its own and
 * those of other aggregates it writes with in one transaction, e.g. a new story's tasks and tags); the store
 * binds them to the pool for single reads, and `transaction` runs several writes atomically over the same
 * repositories bound to one transaction. src/db/boards-store.ts builds one store holding every slice's
 * repositories, which satisfies each slice's narrower `Store<...>`.
 */
export type Store<Repositories> = Repositories & {
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /**
   * `transaction` for a write that begins by locking board `projectId`'s row: the writes waiting for one board
   * may share one transaction, each all or nothing as alone. `work` must do nothing but its statements (it may
   * run twice: once in a shared transaction that was rolled back, then alone).
   */
  boardTransaction<T>(projectId: number, work: (tx: Repositories) => Promise<T>): Promise<T>;
};
