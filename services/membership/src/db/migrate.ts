// CLI: applies this service's migrations (local stack; the chart's `migrate` init container), then exits.
import path from 'node:path';
import { runMigrationsCli } from '@flowboard/pg-kit';
import { loadConfig } from '@flowboard/service-kit';
import { migrateConfigSchema } from '../config';

void runMigrationsCli({
  dir: path.join(__dirname, '..', '..', 'migrations'),
  loadConfig: () => loadConfig(migrateConfigSchema),
});
