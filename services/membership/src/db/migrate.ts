import path from 'node:path';
import { runMigrationsCli } from '@flowboard/pg-kit';
import { loadConfig } from '@flowboard/service-kit';
import { migrateConfigSchema } from '../config';

/** `npm run migrate`: applies migrations/*.sql with DATABASE_URL (as the service role) and exits. */
const config = loadConfig(migrateConfigSchema);
void runMigrationsCli({
  schema: config.DB_SCHEMA,
  dir: path.join(__dirname, '..', '..', 'migrations'),
  databaseUrl: config.DATABASE_URL,
});
