export * from './envelope';
export * from './membership';
export * from './project-deleted';
export * from './story-deleted';
export * from './outbox';
export * from './resource-changed';
export * from './json-schemas';
