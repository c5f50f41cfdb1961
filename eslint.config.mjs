// One lint configuration for the whole monorepo (flat config).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // What .gitignore ignores (made by builds and runs), and generated code.
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      '**/.turbo/**',
      '**/.flowboard/**',
      '**/.schemathesis/**',
      'proto/src/generated/**',
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
  {
    // Plain JavaScript (scripts, the tests' jest configs and helpers, bench, fuzz): Node's globals; CommonJS files
    // (.js outside ES module packages, .cjs) load with require.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.test.mjs', '**/*.test.js', 'packages/jest-preset/long-timeout.js'],
    languageOptions: { globals: { ...globals.jest } },
  },
);
