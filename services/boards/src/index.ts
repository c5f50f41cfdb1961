// Entry for in-process use (e2e tests, tooling); the service itself starts from main.ts.
export { createApp, type BoardsApp } from './app';
export { configSchema, loadBoardsConfig, type BoardsConfig } from './config';
export { MIGRATIONS_DIR } from './db/migrations-dir';
