// CLI: applies this service's migrations (local stack, the Helm pre-install/pre-upgrade Job), then exits.
import { runMigrationsCli } from '@flowboard/pg-kit';
import { loadMigrationConfig } from '../config';
import { MIGRATIONS_DIR } from './migrations-dir';

void runMigrationsCli({ dir: MIGRATIONS_DIR, loadConfig: () => loadMigrationConfig() });
