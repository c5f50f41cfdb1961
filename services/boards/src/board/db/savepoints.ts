import type { Queryable } from '@flowboard/pg-kit';
import type { Savepoints } from '../application/ports';

/** A transaction's client that counts the statements through it that may write, and those that failed. */
export type CountedQueryable = Queryable & { readonly statements: { writes: number; failures: number } };

/**
 * `db` counting its statements: every one but a SELECT may write. The repositories of a transaction all go through
 * the one counter, so `Savepoints.mark` sees what any of them did.
 */
export function countStatements(db: Queryable): CountedQueryable {
  const statements = { writes: 0, failures: 0 };
  const query = (config: string | { text: string }, values?: unknown[]) => {
    const text = typeof config === 'string' ? config : config.text;
    if (!/^\s*SELECT\b/i.test(text)) statements.writes += 1;
    return (db.query as (c: unknown, v?: unknown[]) => Promise<unknown>)(config, values).catch(
      (err: unknown) => {
        statements.failures += 1;
        throw err;
      },
    );
  };
  return { query, statements } as unknown as CountedQueryable;
}

/** Savepoints on a transaction's counted client (board/application/ports.ts); one name serves nested ones too. */
export function savepoints(db: CountedQueryable): Savepoints {
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
    mark() {
      const { writes, failures } = db.statements;
      return { wrote: () => db.statements.writes !== writes || db.statements.failures !== failures };
    },
  };
}
