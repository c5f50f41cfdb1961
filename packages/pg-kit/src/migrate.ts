import fs from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { lockFirstDirectives, takeLocksFirst, type LockFirstOptions } from './migration-locks';
import { quoteIdent } from './pool';

export interface MigrateOptions {
  schema: string;
  /** Folder of forward-only `NNNN_name.sql` files, applied in name order. */
  dir: string;
  log?: (message: string) => void;
  /** How a file's `flowboard:lock-first` locks are taken (migration-locks.ts). */
  lockFirst?: LockFirstOptions;
}

/**
 * A small, concurrency-safe migration runner. Each file runs in its own transaction that first takes a
 * transaction-scoped advisory lock for the schema, so two runners (two pods, a Job and a test) never apply the
 * same file twice: the second waits, then sees the version row and skips. A file's `flowboard:lock-first` lines
 * are taken, at once, before its first statement (migration-locks.ts: why, and the rule). Why not a library: the common ones
 * are ESM-only or want JS migrations; ours are plain SQL, and this is the whole mechanism.
 */
export async function migrate(pool: pg.Pool, options: MigrateOptions): Promise<string[]> {
  const schema = quoteIdent(options.schema);
  const files = (await fs.readdir(options.dir)).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();
  const applied: string[] = [];
  for (const file of files) {
    const sql = await fs.readFile(path.join(options.dir, file), 'utf8');
    let lockFirst;
    try {
      lockFirst = lockFirstDirectives(sql);
    } catch (err) {
      throw new Error(`migration ${options.schema}/${file}: ${(err as Error).message}`);
    }
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${options.schema}.migrations`]);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${schema}.migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const done = await client.query(`SELECT 1 FROM ${schema}.migrations WHERE version = $1`, [file]);
      if (done.rowCount === 0) {
        await takeLocksFirst(client, lockFirst, options.lockFirst);
        await client.query(sql);
        await client.query(`INSERT INTO ${schema}.migrations (version) VALUES ($1)`, [file]);
        applied.push(file);
        options.log?.(`applied ${options.schema}/${file}`);
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw new Error(`migration ${options.schema}/${file} failed: ${(err as Error).message}`, {
        cause: err,
      });
    } finally {
      client.release();
    }
  }
  return applied;
}
