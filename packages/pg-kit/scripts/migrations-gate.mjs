// The `migrations` contract gate (scripts/contract-check.sh): every migration not yet released must be safe to run
// while the previous release serves, as far as locks go (src/migration-locks.ts: the rule and why). Released
// migrations have run in deployments already and stay as they are.
//
//   node packages/pg-kit/scripts/migrations-gate.mjs <released list> <services dir>
//
// <released list>: one `<service>/<file>` a line (contracts/released/migrations.txt). Prints one line a migration
// checked and one `BREAK <service>/<file>: <why>` a problem; exits 1 when there is any.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { lockOrderProblems } = require('../dist/migration-locks.js');

const [releasedList, servicesDir] = process.argv.slice(2);
if (!releasedList || !servicesDir) {
  console.error('usage: migrations-gate.mjs <released list> <services dir>');
  process.exit(2);
}
const released = new Set(
  fs
    .readFileSync(releasedList, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean),
);
let checked = 0;
let breaks = 0;
for (const service of fs.readdirSync(servicesDir).sort()) {
  const dir = path.join(servicesDir, service, 'migrations');
  if (!fs.existsSync(dir)) continue;
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()) {
    const name = `${service}/${file}`;
    if (released.has(name)) continue;
    checked++;
    let problems;
    try {
      problems = lockOrderProblems(fs.readFileSync(path.join(dir, file), 'utf8'));
    } catch (err) {
      problems = [err.message];
    }
    for (const problem of problems) console.log(`BREAK ${name}: ${problem}`);
    breaks += problems.length;
    if (problems.length === 0) console.log(`ok    ${name}`);
  }
}
console.log(`${checked} unreleased migration(s) checked, ${released.size} released left as they ran`);
process.exit(breaks > 0 ? 1 : 0);
