export * from './env';
export * from './mailpit';
export * from './http';
export * from './contract';
export * from './tracing';
export * from './tcp-proxy';
export * from './outbox-events';
export * from './kafka-tail';
