// The backup and restore drill (scripts/backup-drill.sh, the `drill` phase of `npm test`; docs/operations.md,
// "Backup and restore"). Against a running local stack:
//   a. seed   through the API: a project, 30 stories with details, tags and tasks, comments, attachments of random
//             bytes (a few bytes to 2 MiB) and a webhook to a receiver in this process, whose signing secret is
//             shown once, at creation;
//   b. capture what the API shows: every story (details, tags, tasks, comments), every comment, every attachment's
//             record and bytes (sha256), the project, its tags, the webhook;
//   c. backup (deploy/local/backup.sh backup), then wipe: stop the services, drop the four schemas, empty the
//             bucket, remove the sealing key, FLUSHALL Redis;
//   d. restore (deploy/local/backup.sh restore), start the services, and check that the API shows exactly what
//             (b) captured, attachments byte-exact, and that the webhook still signs its deliveries with the secret
//             from (a).
// Exits non-zero naming the first differences. The stack is running again afterwards, whatever happened.
import { spawnSync } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import * as Minio from 'minio';

const REPO = path.resolve(import.meta.dirname, '..');
const { GATEWAY_URL, FLOWBOARD_HOME } = process.env;
if (!GATEWAY_URL || !FLOWBOARD_HOME) throw new Error('GATEWAY_URL and FLOWBOARD_HOME must be set');

// The stack's settings, from its infra.env (as services.sh and backup.sh read them: the stack the drill wipes is
// the one they act on, whatever else the environment names).
const infraEnv = readFileSync(path.join(FLOWBOARD_HOME, 'infra.env'), 'utf8');
function setting(name) {
  const value = new RegExp(`^export ${name}='?([^'\n]*)'?$`, 'm').exec(infraEnv)?.[1] ?? process.env[name];
  if (!value) throw new Error(`${name} is neither in ${FLOWBOARD_HOME}/infra.env nor in the environment`);
  return value;
}

class DrillError extends Error {}

// ---------------------------------------------------------------------------------------------------------
// Steps, timed.

const timings = [];
async function step(name, fn) {
  console.log(`\n==> drill: ${name}`);
  const t0 = performance.now();
  const result = await fn();
  const seconds = (performance.now() - t0) / 1000;
  timings.push([name, seconds]);
  console.log(`    ${name}: ${seconds.toFixed(1)}s`);
  return result;
}

function run(command, args) {
  const res = spawnSync(command, args, { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.status !== 0)
    throw new DrillError(`${command} ${args.join(' ')} failed (exit ${res.status ?? res.signal})`);
}

function output(command, args) {
  const res = spawnSync(command, args, { cwd: REPO, encoding: 'utf8' });
  if (res.status !== 0) throw new DrillError(`${command} ${args.join(' ')} failed: ${res.stderr.trim()}`);
  return res.stdout.trim();
}

// ---------------------------------------------------------------------------------------------------------
// The API.

async function call(route, { method = 'GET', key, body, form } = {}) {
  const headers = {};
  if (key) headers['X-Zen-ApiKey'] = key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const send = () =>
    fetch(`${GATEWAY_URL}${route}`, {
      method,
      headers,
      body: form ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
  let res = await send();
  // In npm test the fuzzer ran just before, from the same address: its rate-limit window may not be over yet.
  for (let retry = 0; res.status === 429 && retry < 3; retry++) {
    const seconds = Math.min(Number(res.headers.get('retry-after')) || 5, 60);
    console.log(`    ${method} ${route}: rate-limited, again in ${seconds}s`);
    await res.arrayBuffer();
    await new Promise((done) => setTimeout(done, seconds * 1000));
    res = await send();
  }
  const text = await res.text();
  if (res.status !== 200) throw new DrillError(`${method} ${route} → ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Every item of a paged list, in order. */
async function all(route, key) {
  const items = [];
  const sep = route.includes('?') ? '&' : '?';
  for (let page = 1; ; page++) {
    const res = await call(`${route}${sep}pageSize=100&page=${page}`, { key });
    items.push(...res.items);
    if (page >= res.totalPages) return items;
  }
}

async function download(route, key) {
  const res = await fetch(`${GATEWAY_URL}${route}`, { headers: { 'X-Zen-ApiKey': key } });
  if (res.status !== 200) throw new DrillError(`GET ${route} → ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

// ---------------------------------------------------------------------------------------------------------
// A webhook receiver (Standard Webhooks), on loopback: the local stack's webhooks service allows 127.0.0.1.

function startReceiver() {
  const received = [];
  const waiters = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
      for (const check of waiters) check();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/drill`,
        /** The first delivery `match` accepts (its parsed payload), waiting up to `seconds`. */
        waitFor(what, match, seconds = 90) {
          return new Promise((done, fail) => {
            const check = () => {
              const found = received.find((r) => match(JSON.parse(r.body)));
              if (!found) return;
              waiters.delete(check);
              clearTimeout(timer);
              done(found);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new DrillError(`no webhook delivery of ${what} within ${seconds}s`));
            }, seconds * 1000);
            waiters.add(check);
            check();
          });
        },
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}

function signatureOk(secret, { headers, body }) {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
    .digest('base64');
  return String(headers['webhook-signature'])
    .split(' ')
    .some((signature) => signature === `v1,${expected}`);
}

/** Updates a story and waits for its signed story.updated delivery. */
async function signedDelivery(receiver, seeded, text) {
  const { key, P, storyId, webhook } = seeded;
  await call(`${P}/stories/${storyId}`, { key, method: 'PUT', body: { text } });
  const delivery = await receiver.waitFor(
    `story.updated "${text}"`,
    (p) => p.type === 'story.updated' && p.data?.id === storyId && p.data?.text === text,
  );
  if (!signatureOk(webhook.secret, delivery))
    throw new DrillError(`the delivery of story.updated "${text}" is not signed with the webhook's secret`);
}

// ---------------------------------------------------------------------------------------------------------
// a. Seed.

const COLORS = ['grey', 'blue', 'red', 'green', 'orange', 'yellow', 'purple', 'teal'];
// A few bytes up to 2 MiB, one or two files per upload, each upload on a story of its own.
const UPLOADS = [[5, 1000], [65_543], [300_000, 1_048_589], [2_097_149], [17, 700_001]];

async function seed(receiver) {
  const suffix = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const owner = await call('/api/v1/users', {
    method: 'POST',
    body: { userName: `drill-${suffix}`, email: `drill-${suffix}@example.test`, name: 'Drill Owner' },
  });
  const key = owner.apiKey;
  const project = await call('/api/v1/projects', {
    key,
    method: 'POST',
    body: { name: `Drill ${suffix}`, description: 'backup and restore drill' },
  });
  const P = `/api/v1/projects/${project.id}`;
  const phases = (await call(`${P}/phases`, { key })).items;
  const tags = [];
  for (const name of ['backend', 'frontend', 'urgent', 'ünïcødé'])
    tags.push(await call(`${P}/tags`, { key, method: 'POST', body: { name: `${name}-${suffix}` } }));

  const stories = [];
  for (let i = 0; i < 30; i++) {
    const story = await call(`${P}/stories`, {
      key,
      method: 'POST',
      body: {
        text: `Story ${i + 1}: ${randomBytes(6).toString('base64')}`,
        details: `# Story ${i + 1}\n\n- *markdown* with \`code\` and ünïcødé ✓\n- ${randomBytes(24).toString('hex')}`,
        size: String((i % 5) + 1),
        priority: ['', 'low', 'high'][i % 3],
        color: COLORS[i % COLORS.length],
        phase: phases[i % phases.length].id,
        owner: i % 2 ? owner.id : undefined,
        tags: tags.filter((_, t) => (i >> t) & 1).map((t) => t.name),
        tasks: Array.from({ length: i % 4 }, (_, t) => ({
          text: `task ${t + 1} of story ${i + 1}`,
          status: t % 2 ? 'complete' : 'incomplete',
        })),
      },
    });
    // Blocked, where a story may be (Backlog and Archive take the phase's status).
    if (i % 7 === 3 && i % phases.length !== 0 && i % phases.length !== phases.length - 1)
      await call(`${P}/stories/${story.id}`, {
        key,
        method: 'PUT',
        body: { status: 'blocked', blockedReason: `waiting on story ${i}` },
      });
    stories.push(story);
  }

  let comments = 0;
  for (const [i, story] of stories.entries()) {
    for (let c = 0; c < i % 3; c++) {
      await call(`${P}/stories/${story.id}/comments`, {
        key,
        method: 'POST',
        body: { text: `comment ${c + 1} on story ${i + 1}: ${randomBytes(8).toString('hex')} ✓` },
      });
      comments++;
    }
  }

  // Random bytes.
  const uploaded = new Map(); // attachment id → sha256 of the bytes sent
  for (const [u, sizes] of UPLOADS.entries()) {
    const story = stories[u * 3];
    const form = new FormData();
    const sent = new Map(); // file name → sha256
    for (const size of sizes) {
      const bytes = randomBytes(size);
      const name = size < 100 ? `note-${size}.txt` : `blob-${size}.bin`;
      sent.set(name, sha256(bytes));
      form.append(
        'file',
        new Blob([bytes], { type: size < 100 ? 'text/plain' : 'application/octet-stream' }),
        name,
      );
    }
    const { items } = await call(`${P}/stories/${story.id}/attachments`, { key, method: 'POST', form });
    for (const item of items) uploaded.set(item.id, sent.get(item.fileName));
  }

  const webhook = await call(`${P}/webhooks`, {
    key,
    method: 'POST',
    body: { url: receiver.url, description: 'backup drill receiver' },
  });
  const seeded = { key, P, storyId: stories[0].id, webhook, uploaded };
  // The receiver and the secret work before the backup (the same check runs after the restore).
  await signedDelivery(receiver, seeded, `Story 1, before the backup ${suffix}`);
  console.log(
    `    project ${project.id}: ${stories.length} stories, ${tags.length} tags, ${comments} comments, ` +
      `${uploaded.size} attachments (${UPLOADS.flat().reduce((s, n) => s + n, 0)} bytes), webhook ${webhook.id}`,
  );
  return seeded;
}

// ---------------------------------------------------------------------------------------------------------
// b. What the API shows.

async function capture({ key, P, uploaded }) {
  const shown = {
    project: await call(`${P}?with=details,phases,members,roles`, { key }),
    tags: await all(`${P}/tags`, key),
    stories: await all(`${P}/stories?with=details,tags,tasks,comments`, key),
    comments: {},
    attachments: {},
    webhooks: await all(`${P}/webhooks`, key),
  };
  shown.webhook = await call(`${P}/webhooks/${shown.webhooks[0].id}`, { key });
  for (const story of shown.stories) {
    const S = `${P}/stories/${story.id}`;
    shown.comments[story.id] = await all(`${S}/comments`, key);
    const attachments = await all(`${S}/attachments`, key);
    for (const a of attachments)
      shown.attachments[a.id] = {
        ...a,
        sha256: sha256(await download(`${S}/attachments/${a.id}/content`, key)),
      };
  }
  // Byte-exact against what was uploaded, not only against the first capture.
  for (const [id, hash] of uploaded) {
    if (shown.attachments[id]?.sha256 !== hash)
      throw new DrillError(`attachment ${id}: the bytes served are not the bytes uploaded`);
  }
  const counts = {
    stories: shown.stories.length,
    comments: Object.values(shown.comments).flat().length,
    attachments: Object.keys(shown.attachments).length,
  };
  console.log(
    `    ${counts.stories} stories, ${counts.comments} comments, ${counts.attachments} attachments`,
  );
  return shown;
}

/** Where `a` and `b` differ, as JSON paths (at most `limit`). */
function differences(a, b, at = '$', out = [], limit = 10) {
  if (out.length >= limit || isDeepStrictEqual(a, b)) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
      differences(a[k], b[k], `${at}.${k}`, out, limit);
  } else {
    out.push(`${at}: before ${JSON.stringify(a)?.slice(0, 120)}, after ${JSON.stringify(b)?.slice(0, 120)}`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// c. Wipe: everything the backup holds, and Redis.

function pgBin() {
  const versions = readdirSync('/usr/lib/postgresql').sort((x, y) => Number(x) - Number(y));
  return `/usr/lib/postgresql/${versions.at(-1)}/bin`;
}
const SCHEMAS = ['boards', 'membership', 'files', 'webhooks'];
const psql = (sql) =>
  output(`${pgBin()}/psql`, ['-d', setting('PG_ADMIN_URL'), '-v', 'ON_ERROR_STOP=1', '-qAtX', '-c', sql]);

function s3() {
  const url = new URL(setting('S3_ENDPOINT'));
  return {
    bucket: setting('S3_BUCKET'),
    client: new Minio.Client({
      endPoint: url.hostname,
      port: Number(url.port || 80),
      useSSL: url.protocol === 'https:',
      accessKey: setting('S3_ACCESS_KEY'),
      secretKey: setting('S3_SECRET_KEY'),
      pathStyle: true,
    }),
  };
}
function objectKeys({ client, bucket }) {
  return new Promise((resolve, reject) => {
    const keys = [];
    client
      .listObjectsV2(bucket, '', true)
      .on('data', (o) => o.name && keys.push(o.name))
      .on('error', reject)
      .on('end', () => resolve(keys));
  });
}

async function wipe() {
  run('bash', ['deploy/local/services.sh', 'stop']);
  psql(
    `SET client_min_messages = warning; ${SCHEMAS.map((s) => `DROP SCHEMA IF EXISTS ${s} CASCADE;`).join(' ')}`,
  );
  const store = s3();
  const keys = await objectKeys(store);
  if (keys.length) await store.client.removeObjects(store.bucket, keys);
  rmSync(path.join(FLOWBOARD_HOME, 'webhooks-secret-key'), { force: true });
  const redisTls = setting('REDIS_URL').startsWith('rediss:')
    ? ['--tls', '--cacert', setting('FLOWBOARD_INFRA_CA')]
    : [];
  output('redis-cli', [...redisTls, '-u', setting('REDIS_URL'), 'FLUSHALL']);
  // Really gone?
  const left = psql(
    `SELECT count(*) FROM pg_namespace WHERE nspname IN (${SCHEMAS.map((s) => `'${s}'`).join(',')})`,
  );
  const objects = (await objectKeys(store)).length;
  if (left !== '0' || objects) throw new DrillError(`wipe: ${left} schemas and ${objects} objects are left`);
  console.log(
    `    dropped ${SCHEMAS.join(', ')}; removed ${keys.length} objects, the sealing key and Redis's keys`,
  );
}

// ---------------------------------------------------------------------------------------------------------

const receiver = await startReceiver();
const backupDir = mkdtempSync(path.join(tmpdir(), 'flowboard-drill-'));
let servicesDown = false;
let failed = false;
try {
  const seeded = await step('seed through the API', () => seed(receiver));
  const before = await step('capture what the API shows', () => capture(seeded));
  await step('backup', () =>
    run('bash', ['deploy/local/backup.sh', 'backup', path.join(backupDir, 'backup')]),
  );
  servicesDown = true;
  await step('wipe (services stopped, schemas dropped, bucket emptied, key removed, Redis flushed)', wipe);
  await step('restore', () =>
    run('bash', ['deploy/local/backup.sh', 'restore', path.join(backupDir, 'backup')]),
  );
  await step('start the services', () => run('bash', ['deploy/local/services.sh', 'start']));
  servicesDown = false;
  const after = await step('capture again and compare', async () => {
    const shown = await capture(seeded);
    const diff = differences(before, shown);
    if (diff.length) throw new DrillError(`the restored stack shows something else:\n  ${diff.join('\n  ')}`);
    return shown;
  });
  await step('webhook: a change after the restore is delivered, signed with the secret from creation', () =>
    signedDelivery(receiver, seeded, `Story 1, after the restore ${seeded.webhook.id}-${Date.now()}`),
  );
  console.log(`\n==> drill: passed: ${after.stories.length} stories and everything on them restored exactly`);
} catch (err) {
  failed = true;
  console.error(`\nerror: drill: ${err instanceof DrillError ? err.message : err.stack}`);
} finally {
  await receiver.close();
  // A failed drill keeps its backup: after the wipe, it is the only copy of the stack's data.
  if (failed) console.error(`==> drill: the backup stays in ${backupDir}`);
  else rmSync(backupDir, { recursive: true, force: true });
  if (servicesDown) {
    console.error('==> drill: starting the services again');
    spawnSync('bash', ['deploy/local/services.sh', 'start'], { cwd: REPO, stdio: 'inherit' });
  }
  console.log('\n==> drill: timings');
  for (const [name, seconds] of timings) console.log(`    ${seconds.toFixed(1).padStart(6)}s  ${name}`);
}
process.exit(failed ? 1 : 0);
