// For in-process use (tests, tooling); the service itself starts from main.ts.
export { createApp, CONSUMER_GROUP, type NotifierApp, type NotifierOverrides } from './app';
export { configSchema, type NotifierConfig } from './config';
export { renderInviteEmail } from './email/invite-email';
