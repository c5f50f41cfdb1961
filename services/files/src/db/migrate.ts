// CLI: applies this service's migrations (local stack, the Helm pre-install/pre-upgrade Job), then exits.
import { runMigrationsCli } from '@flowboard/pg-kit';
import { ConfigError } from '@flowboard/service-kit';
import { loadMigrationConfig } from '../config';
import { MIGRATIONS_DIR } from './migrations-dir';

let config: ReturnType<typeof loadMigrationConfig>;
try {
  config = loadMigrationConfig();
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
}
void runMigrationsCli({ schema: config.DB_SCHEMA, dir: MIGRATIONS_DIR, databaseUrl: config.DATABASE_URL });
