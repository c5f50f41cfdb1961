/**
 * The repository's import rules, checked by `npm run check:imports` (a phase of `npm test`). They are the layer
 * rules of docs/design.md: no import circles anywhere; a service's domain is pure (no adapter, no I/O library);
 * its use cases reach adapters only through their ports; services never import each other (they talk over gRPC and
 * Kafka); shared packages never import a service. Type-only imports count: a circle of types is still a circle.
 */
const ADAPTERS = '(db|grpc|http|blob|events|messaging|consumer|email|clients)';
// A service's layers sit directly under src/, or one folder deeper in a service sliced by aggregate
// (boards: src/stories/domain/, src/shared/db/...): `src/` then at most one slice folder.
const LAYER = (layer) => `^services/[^/]+/src/([^/]+/|)${layer}/`;
// Matched against resolved paths: npm modules as node_modules/<name>/..., workspace packages as packages/<name>/...
const IO_LIBRARIES = [
  '(^|/)node_modules/(pg|@grpc/[^/]+|kafkajs|minio|ioredis|express|nodemailer)/',
  '^packages/(pg-kit|messaging)/',
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: the files in it can only be understood, tested and changed together.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-stays-pure',
      severity: 'error',
      comment: 'domain/ is rules and values: no use case, no adapter, no I/O library.',
      from: { path: LAYER('domain') },
      to: { path: [LAYER(`(application|${ADAPTERS.slice(1, -1)})`), ...IO_LIBRARIES] },
    },
    {
      name: 'use-cases-through-ports',
      severity: 'error',
      comment: 'application/ reaches databases and other services only through the ports it declares.',
      from: { path: LAYER('application') },
      to: { path: [LAYER(ADAPTERS), ...IO_LIBRARIES] },
    },
    {
      name: 'shared-below-slices',
      severity: 'error',
      comment:
        "A sliced service's shared/ serves every slice (stories, phases...): it imports none of them, only itself.",
      from: { path: '^services/([^/]+)/src/shared/' },
      to: { path: '^services/$1/src/', pathNot: '^services/$1/src/shared/' },
    },
    {
      name: 'services-stay-apart',
      severity: 'error',
      comment:
        'A service never imports another one: they meet over gRPC, HTTP and Kafka, through proto/ and packages/.',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'gateway-cache-through-its-seam',
      severity: 'error',
      comment:
        "The gateway's caches are one module: what they keep and why they stay exact is stated in cache/index.ts, " +
        'and nothing else reaches past it.',
      from: { path: '^services/gateway/(src|test)/', pathNot: '^services/gateway/src/cache/' },
      to: { path: '^services/gateway/src/cache/', pathNot: '^services/gateway/src/cache/index\\.ts$' },
    },
    {
      name: 'gateway-idempotency-through-its-seam',
      severity: 'error',
      comment:
        'The Idempotency-Key store is one module (idempotency/index.ts): how answers are kept is its own.',
      from: { path: '^services/gateway/(src|test)/', pathNot: '^services/gateway/src/idempotency/' },
      to: {
        path: '^services/gateway/src/idempotency/',
        pathNot: '^services/gateway/src/idempotency/index\\.ts$',
      },
    },
    {
      name: 'packages-below-services',
      severity: 'error',
      comment: 'Shared packages serve every service; one that imports a service would tie them all to it.',
      from: { path: '^(packages|proto)/' },
      to: { path: '^services/' },
    },
  ],
  options: {
    // Built packages (dist/) and npm modules are where imports land, not places to look for more imports.
    doNotFollow: { path: ['(^|/)node_modules/', '(^|/)dist/'] },
    exclude: { path: '/src/generated/|(^|/)coverage/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['types', 'import', 'require', 'node', 'default'],
      extensions: ['.ts', '.d.ts', '.js', '.cjs', '.mjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
