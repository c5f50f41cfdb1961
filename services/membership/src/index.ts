// For in-process use (tests, tooling); the service itself starts from main.ts.
export { createApp, SERVICE_NAME, type MembershipApp } from './app';
export { configSchema, type MembershipConfig } from './config';
