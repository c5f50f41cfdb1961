// Entry for in-process use (e2e tests, tooling); the service itself starts from main.ts.
export { createApp, type FilesApp } from './app';
export { configSchema, loadFilesConfig, type FilesConfig } from './config';
export { MIGRATIONS_DIR } from './db/migrations-dir';
