// Every workspace's jest.config.js is `require('@flowboard/jest-preset').config(__dirname[, { infrastructure }])`.
// Two projects: `unit` (src/**/*.test.ts, no I/O) and `integration` (test/integration/**/*.int.test.ts,
// real infrastructure: `infrastructure` lists what they need of postgres, redis, kafka, minio and mailpit, which
// integration-setup.js starts in containers) — or, for test/e2e, `e2e` (test/**/*.e2e.test.ts), and for
// test/cluster, `cluster` (test/**/*.cluster.test.ts, a Kubernetes install: scripts/cluster-test.sh).
const path = require('node:path');
const { INFRASTRUCTURE_KEY } = require('./infrastructure-key');

const transform = {
  '^.+\\.ts$': [
    require.resolve('@swc/jest'),
    { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
  ],
};

function project(rootDir, displayName, testMatch, extra = {}) {
  return {
    displayName,
    rootDir,
    testMatch,
    transform,
    testEnvironment: 'node',
    moduleFileExtensions: ['ts', 'js', 'json'],
    ...extra,
  };
}

const slow = { slowTestThreshold: 30, setupFilesAfterEnv: [path.join(__dirname, 'long-timeout.js')] };

function config(rootDir, { infrastructure = [] } = {}) {
  return {
    projects: [
      project(rootDir, 'unit', ['<rootDir>/src/**/*.test.ts']),
      project(rootDir, 'integration', ['<rootDir>/test/integration/**/*.int.test.ts'], {
        ...slow,
        globalSetup: path.join(__dirname, 'integration-setup.js'),
        globalTeardown: path.join(__dirname, 'integration-teardown.js'),
        globals: { [INFRASTRUCTURE_KEY]: infrastructure },
      }),
      project(rootDir, 'e2e', ['<rootDir>/test/**/*.e2e.test.ts'], slow),
      project(rootDir, 'cluster', ['<rootDir>/test/**/*.cluster.test.ts'], slow),
    ],
    reporters: ['default', path.join(__dirname, 'summary-reporter.js')],
  };
}

module.exports = { config };
