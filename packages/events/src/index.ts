export * from './envelope';
export * from './membership';
