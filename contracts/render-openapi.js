// Prints the public HTTP API's OpenAPI document as the gateway serves it (GET /api/v1/openapi.json, built by
// services/gateway/src/api/openapi/document.ts), from the built gateway (npx turbo run build first):
//   node contracts/render-openapi.js [<the gateway's dist folder>] > openapi.json
// scripts/contract-check.sh compares it with contracts/released/openapi.json (oasdiff) and writes that file on release.
const path = require('node:path');

let openApiDocument;
try {
  const dist = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'services', 'gateway', 'dist'));
  ({ openApiDocument } = require(path.join(dist, 'api', 'openapi', 'document.js')));
} catch (err) {
  console.error(`cannot load the built gateway (run \`npx turbo run build\` first): ${err.message}`);
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(openApiDocument(), null, 2)}\n`);
