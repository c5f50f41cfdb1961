// One lint configuration for the whole monorepo (flat config).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'proto/src/generated/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Configuration is parsed once, in each service's src/config.ts; nothing else reads the environment.
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through src/config.ts.' },
      ],
    },
  },
  {
    // tracing-sdk.ts: the OpenTelemetry SDK reads the standard OTEL_* variables itself; this file only decides
    // from them whether to start it.
    files: [
      '**/config.ts',
      'packages/service-kit/src/tracing-sdk.ts',
      '**/*.test.ts',
      '**/test/**',
      'packages/testing/**',
      'packages/jest-preset/**',
      'packages/mail-sink/**',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
);
