import { env, loadConfig } from '@flowboard/service-kit';
import { z } from 'zod';

const schemaName = () => z.string().regex(/^[a-z_][a-z0-9_]*$/, 'must be a lowercase SQL identifier');

/** Every environment variable the boards service reads. */
export const configSchema = z.object({
  GRPC_PORT: env.port(50051),
  GRPC_HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: env.url(),
  DB_SCHEMA: schemaName().default('boards'),
  LOG_LEVEL: env.logLevel(),
});

export type BoardsConfig = z.infer<typeof configSchema>;

export const loadBoardsConfig = (source: NodeJS.ProcessEnv = process.env): BoardsConfig =>
  loadConfig(configSchema, source);

/** The migration CLI needs only the database. */
const migrationSchema = configSchema.pick({ DATABASE_URL: true, DB_SCHEMA: true });
export const loadMigrationConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(migrationSchema, source);
