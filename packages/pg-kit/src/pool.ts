import pg from 'pg';
import { changesMark } from '@flowboard/service-kit';

// Timestamps are stored as timestamptz and formatted by the application; hand them over as Date.
// int8 (bigserial ids, counts) become numbers: every value here is far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything that can run a query: the pool or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

export interface PoolOptions {
  connectionString: string;
  /** The service's own schema, first on the search path. */
  schema: string;
  applicationName: string;
  max?: number;
}

export function createPool(options: PoolOptions): pg.Pool {
  return new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName,
    options: `-c search_path=${quoteIdent(options.schema)}`,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 10_000,
  });
}

export interface TransactionOptions {
  /**
   * A statement without parameters sent with BEGIN, in the same round trip (the simple query protocol takes both at
   * once); its result is `fn`'s second argument. For the statement every such transaction starts with, e.g. taking a
   * row lock: one round trip less each time. Its text must be safe as it is: it is not bound, so put no input in it
   * that is not a checked number.
   */
  withBegin?: string;
}

/** Runs `fn` in one transaction: COMMIT when it resolves, ROLLBACK when it throws. */
export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient, begun?: pg.QueryResult) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const client = await pool.connect();
  // The changes `fn` records for its request's answer hold only if they commit.
  const changes = changesMark();
  let discard: Error | undefined;
  // The pool stops listening for a client's errors while it is checked out, and `fn` may await other things
  // between statements: a connection lost then would be an unhandled 'error' event, and the process would crash
  // on a database blip. The next statement fails instead, and the connection is not put back.
  const onLost = (err: Error) => (discard = err);
  client.on('error', onLost);
  try {
    let begun: pg.QueryResult | undefined;
    if (options.withBegin === undefined) await client.query('BEGIN');
    else begun = beginResult(await client.query(`BEGIN; ${options.withBegin}`));
    const result = await fn(client, begun);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    changes.undo();
    const rolledBack = await client.query('ROLLBACK').then(
      () => true,
      () => false,
    );
    // Not back into the pool: a connection that could not roll back, or whose statements prepared by name
    // outlived a migration that changed their result types (every next use would fail the same way).
    if (!rolledBack || isStalePlan(err)) discard = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.off('error', onLost);
    client.release(discard);
  }
}

/** The result of the statement sent with BEGIN: a query of two statements answers one result each. */
function beginResult(results: pg.QueryResult | pg.QueryResult[]): pg.QueryResult {
  const all = Array.isArray(results) ? results : [results];
  const result = all[1];
  if (all.length !== 2 || !result)
    throw new Error('withBegin: give exactly one statement to send with BEGIN');
  return result;
}

/** PostgreSQL's "cached plan must not change result type" (SQLSTATE 0A000) on a named prepared statement. */
const isStalePlan = (err: unknown): boolean =>
  (err as { code?: string } | null)?.code === '0A000' && /cached plan/i.test((err as Error).message);

export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe identifier: ${name}`);
  return `"${name}"`;
}

/** PostgreSQL error codes the services translate into domain errors. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';
export const isPgError = (e: unknown, code: string): boolean =>
  (e as { code?: string } | null)?.code === code;

/**
 * PostgreSQL ended the transaction to let a concurrent one through (deadlock_detected 40P01, serialization_failure
 * 40001): it wrote nothing, and the same work may succeed when run again.
 */
export const isTransientConflict = (e: unknown): boolean => isPgError(e, '40P01') || isPgError(e, '40001');
