import { withTransaction, type Pool, type Queryable } from '@flowboard/pg-kit';
import type { Store } from '../application/store';

/**
 * The PostgreSQL store: the repositories `on(db)` makes, bound to the pool for single reads, and the same
 * repositories bound to one transaction's client inside `transaction`.
 */
export function createStore<Repositories>(
  pool: Pool,
  on: (db: Queryable) => Repositories,
): Store<Repositories> {
  return {
    ...on(pool),
    transaction: (work) => withTransaction(pool, (client) => work(on(client))),
  };
}
