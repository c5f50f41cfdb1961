export * from './pool';
export * from './migrate';
export * from './migration-locks';
export * from './outbox';
export * from './cli';
