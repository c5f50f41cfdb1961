// CLI: applies this service's migrations (local stack; the chart's `migrate` init container), then exits.
import { runMigrationsCli } from '@flowboard/pg-kit';
import { loadMigrationConfig } from '../config';
import { MIGRATIONS_DIR } from './migrations-dir';

void runMigrationsCli({ dir: MIGRATIONS_DIR, loadConfig: () => loadMigrationConfig() });
