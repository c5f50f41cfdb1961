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

// The gateway's rooms, top to bottom (docs/design.md, "The gateway's layout"): a room imports only the rooms below
// it, never one above or beside it. Above them all src/app.ts, main.ts and index.ts compose; below them all config.ts,
// redis.ts, readiness.ts and instrumentation.ts import no room.
const GATEWAY_SRC = '^services/gateway/src/';
const GATEWAY_FLOORS = [
  ['edge'], // the request path, in order: record, pipeline steps, dispatch
  ['mcp'], // the MCP endpoint: tools made from api/'s declarations, each call a request into the app, not a handler
  ['api'], // what the API is: operations, router, handlers' Call, each resource's routes, the OpenAPI document
  ['authz', 'feed'], // API keys and project access; the change stream's Kafka reader (apart)
  ['cache'], // what the gateway keeps, behind cache/index.ts
  ['clients', 'idempotency', 'stream'], // services' clients; the Idempotency-Key store; the change stream (apart)
  ['wire'], // formats on the wire: bodies, fields, query, negotiation, replies, problems, XML, pages
];
const gatewayLayerRules = () =>
  GATEWAY_FLOORS.flatMap((floor, at) =>
    floor.map((room) => {
      const above = [...GATEWAY_FLOORS.slice(0, at).flat(), ...floor.filter((other) => other !== room)];
      return {
        name: `gateway-${room}-imports-down`,
        severity: 'error',
        comment:
          `The gateway's ${room}/ imports only the rooms below it (docs/design.md, "The gateway's layout"): ` +
          `not ${above.length ? `${above.join('/, ')}/ or ` : ''}the composition root.`,
        from: { path: `${GATEWAY_SRC}${room}/` },
        to: {
          path: [
            ...(above.length ? [`${GATEWAY_SRC}(${above.join('|')})/`] : []),
            `${GATEWAY_SRC}(app|main|index)\\.ts$`,
          ],
        },
      };
    }),
  );

// boards' slices, bottom up (docs/design.md, "Service layout"): a slice imports shared/ and the slices on the levels
// below its own, never one beside or above it, nor what composes them (app.ts, main.ts, index.ts, db/: the store of
// every slice's repositories, the migrations). What a lower slice serves with a higher one's help is joined in app.ts.
const BOARDS_SRC = '^services/boards/src/';
const BOARDS_SLICE_LEVELS = [
  ['board', 'history'], // the board row: its lock, story numbering, create/delete, write batches; a story's steps
  ['phases'], // the board's phases, written under the board's lock
  ['stories'], // stories in phases: numbered by the board, history written with every create and move
  ['tags', 'tasks', 'comments'], // what hangs off a story; tasks and tags give a new story its parts
  ['search', 'bulk'], // search reads a story with everything hanging off it; bulk writes many, with their tags
];
const boardsSliceRules = () =>
  BOARDS_SLICE_LEVELS.flatMap((level, at) =>
    level.map((slice) => {
      const notBelow = BOARDS_SLICE_LEVELS.slice(at)
        .flat()
        .filter((other) => other !== slice);
      return {
        name: `boards-${slice}-imports-down`,
        severity: 'error',
        comment:
          `boards' ${slice}/ imports only shared/ and the slices below it (docs/design.md, "Service layout"): ` +
          `not ${notBelow.join('/, ')}/, nor the composition (app.ts, db/).`,
        from: { path: `${BOARDS_SRC}${slice}/` },
        to: { path: [`${BOARDS_SRC}(${notBelow.join('|')})/`, `${BOARDS_SRC}((app|main|index)\\.ts$|db/)`] },
      };
    }),
  );

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
    ...boardsSliceRules(),
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
    ...gatewayLayerRules(),
    {
      name: 'gateway-floor-files-import-no-room',
      severity: 'error',
      comment:
        "The gateway's configuration, Redis connection, readiness and instrumentation sit under every room: " +
        'they import none of them, nor the composition root.',
      from: { path: `${GATEWAY_SRC}(config|redis|readiness|instrumentation)\\.ts$` },
      to: { path: `${GATEWAY_SRC}([^/]+/|(app|main|index)\\.ts$)` },
    },
    {
      name: 'gateway-api-vocabulary-below-resources',
      severity: 'error',
      comment:
        "api/'s own files (operation.ts, router.ts, call.ts, schema.ts) are the vocabulary resources are written " +
        'in: they import no resource and not the OpenAPI document.',
      from: { path: `${GATEWAY_SRC}api/[^/]+\\.ts$` },
      to: { path: `${GATEWAY_SRC}api/(openapi|resources)/` },
    },
    {
      name: 'gateway-resource-schemas-on-schema-only',
      severity: 'error',
      comment:
        "A resource's shapes (resources/<resource>.schemas.ts) are written in api/schema.ts alone: no handler, no " +
        "other resource's file, not the OpenAPI document. Other shapes are named by $ref, never imported. The one " +
        'other leaf they may read is the scope vocabulary (authz/scopes.ts, importing nothing): the groups a key ' +
        'names are an enum of the document.',
      from: { path: `${GATEWAY_SRC}api/resources/[^/]+\\.schemas\\.ts$` },
      to: { path: GATEWAY_SRC, pathNot: `${GATEWAY_SRC}(api/schema|authz/scopes)\\.ts$` },
    },
    {
      name: 'gateway-mcp-calls-the-api-not-its-handlers',
      severity: 'error',
      comment:
        "The MCP tools read the API's declarations (resources/index.ts, the OpenAPI document) and call the API as a " +
        'request through their transport, so every call passes authentication, scopes, limits and If-Match: they ' +
        "import no resource's handlers.",
      from: { path: `${GATEWAY_SRC}mcp/` },
      to: { path: `${GATEWAY_SRC}api/resources/`, pathNot: `${GATEWAY_SRC}api/resources/index\\.ts$` },
    },
    {
      name: 'gateway-openapi-above-resources',
      severity: 'error',
      comment: 'The OpenAPI document is built from the resources: no resource imports it.',
      from: { path: `${GATEWAY_SRC}api/resources/` },
      to: { path: `${GATEWAY_SRC}api/openapi/` },
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
