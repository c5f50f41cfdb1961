// Entry for in-process use (tests, tooling); the service itself starts from main.ts.
export { createApp, USER_AGENT, type WebhooksApp, type WebhooksOverrides } from './app';
export { configSchema, loadWebhooksConfig, type WebhooksConfig } from './config';
export { MIGRATIONS_DIR } from './db/migrations-dir';
export type { PayloadRenderer } from './application/ports';
