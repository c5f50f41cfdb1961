import type { Queryable } from '@flowboard/pg-kit';
import type { Savepoints } from '../application/ports';

/** Savepoints on a transaction's client (board/application/ports.ts); one name serves nested ones too. */
export function savepoints(db: Queryable): Savepoints {
  return {
    async within(work) {
      await db.query('SAVEPOINT item');
      try {
        const value = await work();
        await db.query('RELEASE SAVEPOINT item');
        return value;
      } catch (error) {
        await db.query('ROLLBACK TO SAVEPOINT item');
        throw error;
      }
    },
  };
}
