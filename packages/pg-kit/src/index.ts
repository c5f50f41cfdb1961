export * from './pool';
export * from './migrate';
export * from './outbox';
export * from './cli';
