// Writes schemas/<topic>.json, the JSON Schema of each topic's messages, from the built code (dist/): run by
// `npm run schemas -w @flowboard/events` after a change to an event (it builds first). A unit test
// (src/json-schemas.test.ts) fails while the committed files and the code disagree.
const { mkdirSync, readdirSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { eventJsonSchemas } = require('../dist/index.js');

const dir = path.join(__dirname, '..', 'schemas');
mkdirSync(dir, { recursive: true });
const schemas = eventJsonSchemas();
for (const file of readdirSync(dir)) {
  if (file.endsWith('.json') && !(file.slice(0, -'.json'.length) in schemas)) rmSync(path.join(dir, file));
}
const files = Object.entries(schemas).map(([topic, schema]) => {
  const file = path.join(dir, `${topic}.json`);
  writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
  return file;
});
// The repository's formatting (npm test checks it with Prettier).
execFileSync(
  process.execPath,
  [require.resolve('prettier/bin/prettier.cjs'), '--write', '--log-level', 'warn', ...files],
  {
    stdio: 'inherit',
  },
);
console.log(`wrote ${files.length} schemas to ${path.relative(process.cwd(), dir) || '.'}`);
