import { createPool } from './pool';
import { migrate } from './migrate';

export interface MigrationsCliOptions {
  /** The service's `migrations/` folder. */
  dir: string;
  /** Parses the service's migration config (DATABASE_URL as the service role, DB_SCHEMA); may throw. */
  loadConfig: () => { DATABASE_URL: string; DB_SCHEMA: string };
}

/**
 * The whole body of each service's `src/db/migrate.ts`: applies the service's migrations and exits non-zero on
 * a bad configuration or a failed migration. Run by the local stack, the Helm pre-install/pre-upgrade Job and
 * integration tests, never on pod start.
 */
export async function runMigrationsCli(options: MigrationsCliOptions): Promise<void> {
  let config: { DATABASE_URL: string; DB_SCHEMA: string };
  try {
    config = options.loadConfig();
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
    return;
  }
  const schema = config.DB_SCHEMA;
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema,
    applicationName: `${schema}-migrate`,
    max: 1,
  });
  try {
    const applied = await migrate(pool, { schema, dir: options.dir, log: (m) => console.log(m) });
    console.log(`${schema}: ${applied.length} migration(s) applied`);
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  } finally {
    await pool.end();
  }
}
