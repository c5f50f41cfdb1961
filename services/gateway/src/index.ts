/** The gateway as a library, for tests that boot it in-process (the package's `exports`). */
export { createApp, type App, type AppOverrides } from './app';
export { configSchema, type GatewayConfig } from './config';
