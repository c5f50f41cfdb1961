import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { requireEnv, uniqueSuffix } from '@flowboard/testing';
import { createPool, migrate } from '../../src';

const { PG_ADMIN_URL } = requireEnv('PG_ADMIN_URL');

/**
 * A migration altering two tables while a request's transaction holds the second and goes on to the first: what
 * boards' 0011 did to the previous release's move. Without `flowboard:lock-first` the two deadlock and PostgreSQL
 * fails one of them; with it the migration gives way, the request commits, and the migration follows.
 */
describe('migrate: flowboard:lock-first (real PostgreSQL)', () => {
  let admin: pg.Pool;
  let dir: string;
  const schemas: string[] = [];

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: PG_ADMIN_URL, max: 4 });
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lock-first-'));
  });

  afterAll(async () => {
    for (const schema of schemas) await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A schema with milestones and steps, its migrations folder holding `file`, and a request's own connection. */
  async function setUp(file: string) {
    const schema = `lockfirst_${uniqueSuffix()}`;
    schemas.push(schema);
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(
      `CREATE TABLE ${schema}.milestones (id bigint); CREATE TABLE ${schema}.steps (id bigint)`,
    );
    const migrations = path.join(dir, schema);
    await fs.mkdir(migrations);
    await fs.writeFile(path.join(migrations, '0001_authors.sql'), file);
    const request = new pg.Client({ connectionString: PG_ADMIN_URL });
    await request.connect();
    await request.query(`SET search_path = ${schema}`);
    const pool = createPool({
      connectionString: PG_ADMIN_URL,
      schema,
      applicationName: 'lock-first',
      max: 1,
    });
    return { schema, migrations, request, pool };
  }

  const ALTER_BOTH = `SET LOCAL deadlock_timeout = '100ms';
ALTER TABLE milestones ADD COLUMN author_id bigint;
ALTER TABLE steps ADD COLUMN author_id bigint;`;

  /** Which locks the migration's connection holds or waits for (the runner names it `lock-first`). */
  async function migrationLocks(schema: string): Promise<string[]> {
    const { rows } = await admin.query<{ lock: string }>(
      `SELECT c.relname || ' ' || l.mode || CASE WHEN l.granted THEN '' ELSE ' (waiting)' END AS lock
       FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE n.nspname = $1 AND a.application_name = 'lock-first' ORDER BY 1`,
      [schema],
    );
    return rows.map((r) => r.lock);
  }

  /** The tables the migration gave an author_id column. */
  async function authorColumns(schema: string): Promise<string[]> {
    const { rows } = await admin.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'author_id'
       ORDER BY 1`,
      [schema],
    );
    return rows.map((r) => r.table_name);
  }

  const until = async (what: () => Promise<boolean>) => {
    for (let i = 0; i < 100 && !(await what()); i++) await new Promise((r) => setTimeout(r, 20));
  };

  it('without it, the migration and the request deadlock, and one of them fails (the hazard is real)', async () => {
    const { schema, migrations, request, pool } = await setUp(ALTER_BOTH);
    try {
      await request.query('BEGIN');
      await request.query('INSERT INTO steps VALUES (1)');
      const migrating = migrate(pool, { schema, dir: migrations }).then(
        () => 'applied',
        (err: Error) => err.message,
      );
      await until(async () => (await migrationLocks(schema)).includes('steps AccessExclusiveLock (waiting)'));
      expect(await migrationLocks(schema)).toContain('milestones AccessExclusiveLock');
      const requested = await request.query('INSERT INTO milestones VALUES (1)').then(
        () => 'written',
        (err: { code?: string }) => err.code,
      );
      await request.query(requested === 'written' ? 'COMMIT' : 'ROLLBACK');
      const migrated = await migrating;
      // PostgreSQL ends whichever side's check runs first: the request's (40P01) or the migration's.
      expect([requested, migrated].filter((o) => o === '40P01' || /deadlock/.test(String(o)))).toHaveLength(
        1,
      );
    } finally {
      await request.end();
      await pool.end();
    }
  });

  it('with it, the migration waits holding nothing; the request commits, then the migration applies', async () => {
    const { schema, migrations, request, pool } = await setUp(
      `-- flowboard:lock-first ACCESS EXCLUSIVE: milestones, steps\n${ALTER_BOTH}`,
    );
    try {
      await request.query('BEGIN');
      await request.query('INSERT INTO steps VALUES (1)');
      const migrating = migrate(pool, { schema, dir: migrations, lockFirst: { retryMs: 10 } });
      // Several attempts fail meanwhile, each giving back what it took: the request's next table is free to it.
      await new Promise((r) => setTimeout(r, 300));
      await request.query('INSERT INTO milestones VALUES (1)');
      await request.query('COMMIT');
      await expect(migrating).resolves.toEqual(['0001_authors.sql']);
      expect(await authorColumns(schema)).toEqual(['milestones', 'steps']);
      expect(await migrationLocks(schema)).toEqual([]);
    } finally {
      await request.end();
      await pool.end();
    }
  });

  it('gives up after its timeout, applying nothing, when a table stays busy', async () => {
    const { schema, migrations, request, pool } = await setUp(
      `-- flowboard:lock-first ACCESS EXCLUSIVE: milestones, steps\n${ALTER_BOTH}`,
    );
    try {
      await request.query('BEGIN');
      await request.query('INSERT INTO steps VALUES (1)');
      await expect(
        migrate(pool, { schema, dir: migrations, lockFirst: { timeoutMs: 300, retryMs: 10 } }),
      ).rejects.toThrow(
        /0001_authors\.sql failed: could not take ACCESS EXCLUSIVE on milestones, steps at once within 300 ms/,
      );
      await request.query('COMMIT');
      expect(await authorColumns(schema)).toEqual([]);
    } finally {
      await request.end();
      await pool.end();
    }
  });

  it('refuses a malformed directive before running anything', async () => {
    const { schema, migrations, request, pool } = await setUp(
      `-- flowboard:lock-first VERY EXCLUSIVE: milestones\n${ALTER_BOTH}`,
    );
    try {
      await expect(migrate(pool, { schema, dir: migrations })).rejects.toThrow(
        /0001_authors\.sql: malformed "-- flowboard:lock-first VERY EXCLUSIVE: milestones"/,
      );
      expect(await authorColumns(schema)).toEqual([]);
    } finally {
      await request.end();
      await pool.end();
    }
  });
});
