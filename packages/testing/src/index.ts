export * from './env';
export * from './mailpit';
export * from './http';
