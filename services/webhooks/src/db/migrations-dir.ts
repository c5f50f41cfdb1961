import path from 'node:path';

/** services/webhooks/migrations, from src/db (tests) and dist/db (the CLI) alike. */
export const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'migrations');
