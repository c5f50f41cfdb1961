import { createPool } from './pool';
import { migrate } from './migrate';

/**
 * Body of each service's `src/db/migrate.ts`: applies the service's migrations with DATABASE_URL and exits.
 * Run by the local stack, the Helm pre-install/pre-upgrade Job and integration tests, never on pod start.
 */
export async function runMigrationsCli(options: { schema: string; dir: string; databaseUrl: string }): Promise<void> {
  const pool = createPool({ connectionString: options.databaseUrl, schema: options.schema, applicationName: `${options.schema}-migrate`, max: 1 });
  try {
    const applied = await migrate(pool, { schema: options.schema, dir: options.dir, log: (m) => console.log(m) });
    console.log(`${options.schema}: ${applied.length} migration(s) applied`);
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  } finally {
    await pool.end();
  }
}
