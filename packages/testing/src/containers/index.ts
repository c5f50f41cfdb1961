// Integration tests' infrastructure in containers (testcontainers): `@flowboard/testing/containers`, kept apart from
// the package's main entry so tests that only need its helpers never load testcontainers.
export * from './images';
export * from './engine';
export * from './infrastructure';
export { RUN_LABEL, removeRun } from './cleanup';
