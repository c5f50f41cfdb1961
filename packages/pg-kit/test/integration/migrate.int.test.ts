import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { requireEnv, uniqueSuffix } from '@flowboard/testing';
import { createPool, migrate } from '../../src';

const { PG_ADMIN_URL } = requireEnv('PG_ADMIN_URL');

describe('migrate (real PostgreSQL)', () => {
  const schema = `pgkit_${uniqueSuffix()}`;
  let admin: pg.Pool;
  let dir: string;

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: PG_ADMIN_URL });
    await admin.query(`CREATE SCHEMA ${schema}`);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'migrations-'));
    await fs.writeFile(
      path.join(dir, '0001_things.sql'),
      'CREATE TABLE things (id serial PRIMARY KEY, name text NOT NULL);',
    );
    await fs.writeFile(path.join(dir, '0002_seed.sql'), "INSERT INTO things (name) VALUES ('only once');");
    await fs.writeFile(path.join(dir, 'README.md'), 'not a migration');
  });

  afterAll(async () => {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('applies each file exactly once even when five runners race', async () => {
    const pools = Array.from({ length: 5 }, () =>
      createPool({ connectionString: PG_ADMIN_URL, schema, applicationName: 'test', max: 1 }),
    );
    try {
      const results = await Promise.all(pools.map((pool) => migrate(pool, { schema, dir })));
      expect(results.flat().sort()).toEqual(['0001_things.sql', '0002_seed.sql']);
      const { rows } = await admin.query(`SELECT name FROM ${schema}.things`);
      expect(rows).toEqual([{ name: 'only once' }]);
      const again = await migrate(pools[0] as pg.Pool, { schema, dir });
      expect(again).toEqual([]);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('rolls a failing file back whole and names it', async () => {
    await fs.writeFile(
      path.join(dir, '0003_broken.sql'),
      "INSERT INTO things (name) VALUES ('half'); SELECT no_such_function();",
    );
    const pool = createPool({ connectionString: PG_ADMIN_URL, schema, applicationName: 'test', max: 1 });
    try {
      await expect(migrate(pool, { schema, dir })).rejects.toThrow(/0003_broken\.sql/);
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM ${schema}.things WHERE name = 'half'`,
      );
      expect(rows[0].n).toBe(0);
      const versions = await admin.query(`SELECT version FROM ${schema}.migrations ORDER BY version`);
      expect(versions.rows.map((r) => r.version)).toEqual(['0001_things.sql', '0002_seed.sql']);
    } finally {
      await pool.end();
    }
  });
});
