// Board API load benchmark (see docs/benchmarks.md). Run through `npm run bench` (bench/run.sh sets the env).
//
// 1. Signs up a user, creates a project through the API (so membership and boards agree), and BENCH_KEYS API
//    keys: the gateway rate-limits per key (1,200 requests a minute), and the load is meant to measure the
//    service, not the limiter's refusal path, so requests rotate over the keys.
// 2. Seeds BENCH_STORIES stories straight into the boards schema with INSERT ... SELECT generate_series, in
//    chunks with progress output: going through the API would take most of an hour. Each story gets what the
//    service would have written: an open milestone and step, tasks on every 4th story, an owner on every other
//    one, and one or two of 20 tags (when the tag tables exist).
// 3. Runs each scenario with autocannon at BENCH_CONNECTIONS connections for BENCH_DURATION seconds, after a
//    short warm-up, and prints one table. A scenario starts only once the work the previous one left behind
//    (outbox relays, Kafka, consumers) is done, and its CPU counts that work too (bench/processes.mjs).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import {
  cpuBetween,
  cpuSnapshot,
  deferredCpu,
  nameProcess,
  restingRates,
  waitUntilQuiet,
} from './processes.mjs';
import { gatewayApi } from './gateway-api.mjs';

const env = (name, fallback) => process.env[name] ?? fallback;
const GATEWAY_URL = env('GATEWAY_URL', 'http://127.0.0.1:8080');
const DATABASE_URL = env('BOARDS_DATABASE_URL');
const STORIES = Number(env('BENCH_STORIES', '100000'));
const CONNECTIONS = Number(env('BENCH_CONNECTIONS', '32'));
const DURATION = Number(env('BENCH_DURATION', '10'));
// 1,200 requests a minute each (the gateway's default limit): 512 keys allow 10,000 req/s for a minute, above what
// cached page reads reach here (~4,000/s); with too few, the limiter's fast 429s would pass for fast answers.
const KEYS = Number(env('BENCH_KEYS', '512'));
// Phase moves a second in the scenario that reads page 1 while the board changes.
const WRITE_RATE = Number(env('BENCH_WRITE_RATE', '20'));
// Seconds of load before each measurement. With 2, the first scenario after a service restart measured 20-30 %
// slower than the same scenario a minute later (V8 still optimising the request path).
const WARMUP = Number(env('BENCH_WARMUP', '5'));
const CHUNK = 10_000;
const TAGS = 20;
// The uncontended writes: BOARDS projects of BOARD_STORIES stories each, so concurrent moves rarely share a board.
const BOARDS = Number(env('BENCH_BOARDS', '50'));
const BOARD_STORIES = Number(env('BENCH_BOARD_STORIES', '1000'));
const STACK_HOME = env('FLOWBOARD_HOME', '.flowboard');
// Words in the seeded titles, for the search scenarios: story g has FIRST_WORDS[g % 50] and SECOND_WORDS[(g / 50) % 40],
// so each first word is on 2,000 stories (more than the 1,000 a search ranks) and each pair on 50.
const FIRST_WORDS =
  `amber basil cedar delta ember fjord garnet harbor indigo juniper kestrel lagoon meadow nectar onyx
  pebble quartz raven saffron tundra umber violet willow xenon yarrow zephyr anchor beacon canyon dune estuary falcon
  glacier heron island jasper kelp lantern marble nimbus orchid prairie quill reef summit thistle upland vortex
  walnut yonder`.split(/\s+/);
const SECOND_WORDS =
  `apple bridge candle drum engine feather garden hammer igloo jacket kettle ladder mirror needle
  orange pillow rocket saddle table umbrella valley wagon yogurt zipper arrow bottle castle dragon emerald forest
  guitar helmet iron jungle kitten lemon monkey noodle ocean pepper`.split(/\s+/);

if (!DATABASE_URL) throw new Error('BOARDS_DATABASE_URL is required (bench/run.sh sets it)');

const log = (message) => console.log(`[bench] ${message}`);

const api = gatewayApi(GATEWAY_URL);

async function setUp() {
  const suffix = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const user = await api('/api/v1/users', {
    method: 'POST',
    body: { userName: `bench-${suffix}`, email: `bench-${suffix}@example.test`, name: 'Bench' },
  });
  const keys = [user.apiKey];
  while (keys.length < KEYS) {
    keys.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(16, KEYS - keys.length) }, () =>
          api('/api/v1/me/apikeys', { method: 'POST', key: user.apiKey }).then((k) => k.key),
        ),
      )),
    );
  }
  const projectId = await createProject(user.apiKey, `Bench ${suffix}`, STORIES);
  log(`user ${user.id} (${keys.length} API keys), project ${projectId}`);
  return { userId: user.id, keys, projectId };
}

/** A project through the API, so membership and boards agree on it. */
async function createProject(key, name, stories) {
  const project = await api('/api/v1/projects', {
    method: 'POST',
    key,
    body: { name, description: `${stories} stories` },
  });
  return project.id;
}

/** Seeds `count` stories into the project, in chunks, printing progress; VACUUM ANALYZE unless told not to. */
async function seed(db, projectId, userId, count = STORIES, { vacuum = true, quiet = false } = {}) {
  const { rows: phases } = await db.query(
    'SELECT id, position FROM phases WHERE project_id = $1 ORDER BY position',
    [projectId],
  );
  if (phases.length !== 5) throw new Error(`expected the 5 default phases, got ${phases.length}`);
  const phaseIds = phases.map((p) => p.id);
  const { rows: tagTables } = await db.query(
    "SELECT to_regclass('tags') IS NOT NULL AND to_regclass('story_tags') IS NOT NULL AS present",
  );
  const withTags = tagTables[0].present;
  let tagIds = [];
  if (withTags) {
    const { rows } = await db.query(
      `INSERT INTO tags (project_id, name) SELECT $1, 'tag ' || g FROM generate_series(1, ${TAGS}) g RETURNING id`,
      [projectId],
    );
    tagIds = rows.map((r) => r.id);
  } else {
    log('no tag tables: seeding without tags');
  }

  const started = Date.now();
  for (let from = 1; from <= count; from += CHUNK) {
    const to = Math.min(count, from + CHUNK - 1);
    await db.query('BEGIN');
    // Phase by g % 5 (Backlog..Archive), so positions within a phase are 1, 2, ... in id order; status follows
    // the phase; created one second apart, the newest now.
    await db.query(
      `INSERT INTO stories (project_id, id, text, details, size, priority, color, status, phase_id, board_position,
                            creator_id, owner_id, created_at, updated_at)
       SELECT $1, g, 'Story ' || g || ' ' || ($7::text[])[1 + g % 50] || ' ' || ($8::text[])[1 + (g / 50) % 40]
                     || ' of the bench board',
              CASE WHEN g % 10 = 0 THEN 'Details of story ' || g ELSE '' END,
              CASE WHEN g % 3 = 0 THEN (g % 8)::text ELSE '' END, '',
              (ARRAY['grey','blue','red','green','orange','yellow','purple','teal'])[1 + g % 8],
              (ARRAY['planned','started','started','started','finished'])[1 + g % 5],
              ($4::bigint[])[1 + g % 5], (g - 1) / 5 + 1, $5,
              CASE WHEN g % 2 = 0 THEN $5::bigint END,
              now() - ($6 - g) * interval '1 second', now()
       FROM generate_series($2::int, $3::int) g`,
      [projectId, from, to, phaseIds, userId, count, FIRST_WORDS, SECOND_WORDS],
    );
    await db.query(
      `INSERT INTO story_milestones (project_id, story_id, phase_id, start_time)
       SELECT project_id, id, phase_id, created_at FROM stories WHERE project_id = $1 AND id BETWEEN $2 AND $3`,
      [projectId, from, to],
    );
    await db.query(
      `INSERT INTO story_steps (project_id, story_id, type, start_time)
       SELECT project_id, id,
              CASE status WHEN 'planned' THEN 'backlog' WHEN 'finished' THEN 'archive' ELSE 'working' END,
              created_at
       FROM stories WHERE project_id = $1 AND id BETWEEN $2 AND $3`,
      [projectId, from, to],
    );
    await db.query(
      `INSERT INTO tasks (project_id, story_id, text, status, position, finished_at, finished_by)
       SELECT $1, g, 'Task ' || t || ' of story ' || g,
              CASE WHEN t = 1 THEN 'complete' ELSE 'incomplete' END, t,
              CASE WHEN t = 1 THEN now() END, CASE WHEN t = 1 THEN $4::bigint END
       FROM generate_series($2::int, $3::int) g CROSS JOIN generate_series(1, 2) t
       WHERE g % 4 = 0`,
      [projectId, from, to, userId],
    );
    if (withTags) {
      await db.query(
        `INSERT INTO story_tags (project_id, story_id, tag_id)
         SELECT $1::bigint, g, ($4::bigint[])[1 + g % ${TAGS}] FROM generate_series($2::int, $3::int) g
         UNION ALL
         SELECT $1::bigint, g, ($4::bigint[])[1 + (g + 7) % ${TAGS}] FROM generate_series($2::int, $3::int) g
         WHERE g % 3 = 0`,
        [projectId, from, to, tagIds],
      );
    }
    await db.query('COMMIT');
    const rate = Math.round(to / ((Date.now() - started) / 1000));
    if (!quiet) log(`seeded ${to.toLocaleString('en')} / ${count.toLocaleString('en')} stories (${rate}/s)`);
  }
  // New stories continue after the seeded ids, as if they had been created through the API.
  await db.query('UPDATE boards SET last_story_id = $2 WHERE project_id = $1', [projectId, count]);
  if (vacuum) await vacuumAnalyze(db, withTags);
  if (!quiet) log(`seeding done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { phaseIds, withTags };
}

/** Statistics for the planner, and the visibility map for index-only counts, as autovacuum would leave them. */
async function vacuumAnalyze(db, withTags) {
  await db.query('VACUUM ANALYZE stories, story_milestones, story_steps, tasks');
  const { rows } = await db.query("SELECT to_regclass('story_search') IS NOT NULL AS present");
  if (rows[0].present) await db.query('VACUUM ANALYZE story_search');
  if (withTags) await db.query('VACUUM ANALYZE tags, story_tags');
}

/** BOARDS more projects of BOARD_STORIES stories each, for writes that do not queue for one board's lock. */
async function seedBoards(db, key, userId) {
  const started = Date.now();
  const boards = [];
  for (let n = 1; n <= BOARDS; n++) {
    const projectId = await createProject(key, `Bench board ${n} of ${BOARDS}`, BOARD_STORIES);
    const { phaseIds, withTags } = await seed(db, projectId, userId, BOARD_STORIES, {
      vacuum: false,
      quiet: true,
    });
    boards.push({ projectId, phaseIds });
    if (n % 10 === 0 || n === BOARDS) log(`seeded board ${n} / ${BOARDS} (${BOARD_STORIES} stories each)`);
    if (n === BOARDS) await vacuumAnalyze(db, withTags);
  }
  log(`${BOARDS} boards seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return boards;
}

/** One autocannon run; `overallRate` caps the requests a second (all connections together). */
function cannon({
  url = GATEWAY_URL,
  keys,
  method = 'GET',
  path,
  body,
  headers,
  duration,
  connections,
  overallRate,
}) {
  let i = 0;
  const request = {
    method,
    setupRequest: (req) => {
      i++;
      const p = typeof path === 'function' ? path(i) : path;
      return {
        ...req,
        path: p,
        headers: {
          'Content-Type': 'application/json',
          'X-Zen-ApiKey': keys[i % keys.length],
          ...(typeof headers === 'function' ? headers(i) : headers),
        },
        body: typeof body === 'function' ? JSON.stringify(body(i)) : body && JSON.stringify(body),
      };
    },
  };
  return new Promise((resolve, reject) => {
    autocannon(
      { url, connections, duration, requests: [request], timeout: 30, overallRate },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/**
 * A scenario: its requests at `connections` for `duration` s, and optionally `alongside` requests at a fixed
 * rate at the same time (writes changing the board under the reads); the figures are the scenario's own.
 */
async function run(title, { duration = DURATION, connections = CONNECTIONS, alongside, ...request }) {
  const [result, side] = await Promise.all([
    cannon({ ...request, duration, connections }),
    alongside && cannon({ keys: request.keys, ...alongside, duration, connections: 2 }),
  ]);
  if (side)
    log(`  alongside: ${side.requests.total} requests${notOk(side) ? `, not 2xx: ${notOk(side)}` : ''}`);
  return { title, result };
}

const rand = (n) => 1 + Math.floor(Math.random() * n);

const IDEMPOTENT_POST = 'POST P/stories with Idempotency-Key';
const SINGLE_MOVES = 'PUT P/stories/{id} phase move, one board (contended)';
const SEARCH_PAIR = 'GET P/search?q=<two words> (50 matches)';
const BULK_MOVES = 'PUT P/stories/bulk, 100 moves a request, one board';
const CACHED_PAGE = 'GET P/stories?page=1 (100 stories)';
const HTTP_CEILING = 'ceiling: node http hello-world (another process)';
const EXPRESS_CEILING = 'ceiling: express hello-world (another process)';
const EXPRESS_BODY_CEILING = "ceiling: express sending the cached page's bytes";
const EXPRESS_REDIS_CEILING = "ceiling: express, one Redis round trip, the cached page's bytes";
const ONE_MOVE = `PUT P/stories/{id} phase move, 1 connection, ${env('BENCH_BOARDS', '50')} boards`;
const SKELETON_MOVE = "ceiling: a move's skeleton";

/** A server of bench/ceiling.mjs in a process of its own: its URL, and how to stop it. */
async function startCeiling(kind, ...args) {
  const child = spawn(process.execPath, [new URL('./ceiling.mjs', import.meta.url).pathname, kind, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  nameProcess(child.pid, kind.startsWith('skeleton-') ? kind : 'ceiling');
  process.on('exit', () => child.kill()); // also when the run fails
  const [chunk] = await Promise.race([
    once(child.stdout, 'data'),
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`ceiling ${kind} ended (${code})`))),
  ]);
  const port = String(chunk).trim();
  return { port, url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

/**
 * A move's skeleton (bench/ceiling.mjs): its store half (gRPC and PostgreSQL, on BOARDS × BOARD_STORIES rows of
 * its own), then its edge half (express and Redis) calling it. Undefined without PG_ADMIN_URL (bench/run.sh
 * exports the local stack's).
 */
async function startSkeleton() {
  if (!process.env.PG_ADMIN_URL) return undefined;
  const store = await startCeiling('skeleton-store', String(BOARDS), String(BOARD_STORIES));
  const edge = await startCeiling('skeleton-edge', `127.0.0.1:${store.port}`);
  return {
    url: edge.url,
    stop: () => {
      edge.stop();
      store.stop();
    },
  };
}

/** A move of the skeleton, the same way as `ONE_MOVE` and the 50-board moves: boards in turn, random stories. */
const skeletonMove = (url) => ({
  url,
  method: 'PUT',
  path: (i) => `/boards/${1 + (i % BOARDS)}/stories/${rand(BOARD_STORIES)}`,
  body: (i) => ({ phase: 2 + (Math.floor(i / BOARDS) % 3) }),
});

/** `count` different story ids of 1..`of`, for one bulk request (a story named twice is its 400). */
function distinctStories(count, of) {
  const ids = new Set();
  while (ids.size < count) ids.add(rand(of));
  return [...ids];
}

/** Never the same twice in a run (warm-ups included), so no read finds its answer cached. */
let missSerial = 0;

/** Answers other than 2xx by status, e.g. `429×120`; '' when there were none. */
function notOk(result) {
  return Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, { count }]) => `${status}×${count}`)
    .join(' ');
}

function optionValue(name) {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

// --reuse keeps the projects of the previous --reuse run (same BENCH_STORIES) instead of seeding new ones: for
// measuring one change after another without the seeding and a new 100,000-story project each time.
async function seededProjects() {
  const statePath = path.join(STACK_HOME, `bench-project-${STORIES}.json`);
  const saved = process.argv.includes('--reuse')
    ? await readFile(statePath, 'utf8').then(JSON.parse, () => undefined)
    : undefined;
  if (saved) log(`reusing project ${saved.projectId} from ${statePath}`);
  if (saved?.boards?.length === BOARDS) return saved;
  const db = new pg.Client({ connectionString: DATABASE_URL, options: '-c search_path=boards' });
  await db.connect();
  try {
    let state = saved;
    if (!state) {
      const { userId, keys, projectId } = await setUp();
      state = { userId, keys, projectId, seeded: await seed(db, projectId, userId) };
    }
    // A state file from before the uncontended scenarios has no user id: the keys' owner is the user.
    state.userId ??= (await api('/api/v1/me', { key: state.keys[0] })).id;
    state.boards = await seedBoards(db, state.keys[0], state.userId);
    await writeFile(statePath, JSON.stringify(state));
    return state;
  } finally {
    await db.end();
  }
}

/** Change events the boards service has committed but not yet published: work a write left behind. */
let backlogDb;
async function outboxBacklog() {
  if (!backlogDb) {
    backlogDb = new pg.Client({ connectionString: DATABASE_URL, options: '-c search_path=boards' });
    await backlogDb.connect();
  }
  const { rows } = await backlogDb.query('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL');
  return rows[0].n;
}

/**
 * A histogram of a service's /metrics, summed over all its series (every route, method and status): how many
 * observations so far and their total in seconds; undefined when the metrics can't be read.
 */
async function histogramTotals(port, name) {
  const text = await fetch(`http://127.0.0.1:${port}/metrics`).then(
    (res) => (res.ok ? res.text() : ''),
    () => '',
  );
  const total = (suffix) =>
    [...text.matchAll(new RegExp(`^${name}_${suffix}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce(
      (sum, match) => sum + Number(match[1]),
      0,
    );
  return text.includes(`${name}_count`) ? { count: total('count'), sum: total('sum') } : undefined;
}

/**
 * Where a request's wall time goes, as the services measure it: the gateway's whole answer, the boards service's
 * gRPC handling (its part of it, waiting for the board lock included), and the board lock's holds
 * (flowboard_board_lock_held_seconds: from taking the lock to the transaction's end); and how many writes each of
 * those transactions carried (flowboard_board_write_batch_size: a board's waiting writes share one).
 */
const timings = () =>
  Promise.all([
    histogramTotals(env('FLOWBOARD_GATEWAY_METRICS_PORT', '9101'), 'flowboard_http_request_duration_seconds'),
    histogramTotals(env('FLOWBOARD_BOARDS_METRICS_PORT', '9103'), 'flowboard_grpc_server_handling_seconds'),
    histogramTotals(env('FLOWBOARD_BOARDS_METRICS_PORT', '9103'), 'flowboard_board_lock_held_seconds'),
    histogramTotals(env('FLOWBOARD_BOARDS_METRICS_PORT', '9103'), 'flowboard_board_write_batch_size'),
  ]);

/** The mean of the observations between two readings of a histogram, in ms ('-' when none or unreadable). */
function meanMs(before, after) {
  const count = before && after ? after.count - before.count : 0;
  return count > 0 ? (((after.sum - before.sum) * 1000) / count).toFixed(2) : '-';
}

/** "name value, ..." of the largest entries, e.g. for CPU by process. */
function describe(byName, format) {
  return Object.entries(byName)
    .filter(([name]) => name !== 'total')
    .sort(([, a], [, b]) => b - a)
    .map(([name, value]) => `${name} ${format(value)}`)
    .join(', ');
}

async function main() {
  const { keys, projectId, seeded, boards } = await seededProjects();
  const P = `/api/v1/projects/${projectId}`;
  const tags = seeded.withTags ? 'with=tags&' : '';
  // Tags are an enrichment only once the gateway knows it; without it the scenario measures the plain page.
  const probe = await fetch(`${GATEWAY_URL}${P}/stories?${tags}pageSize=1`, {
    headers: { 'X-Zen-ApiKey': keys[0] },
  });
  const tagsParam = probe.status === 200 ? tags : '';
  if (tags && !tagsParam) log('the gateway refuses with=tags: the first scenario runs without it');

  const middle = seeded.phaseIds.slice(1, 4);
  // The cached page's own bytes (as autocannon gets them: uncompressed), for the ceilings that send the same body.
  const pageBody = path.join(os.tmpdir(), `flowboard-bench-page-${process.pid}.json`);
  const page = await fetch(`${GATEWAY_URL}${P}/stories?page=1`, { headers: { 'X-Zen-ApiKey': keys[0] } });
  await writeFile(pageBody, Buffer.from(await page.arrayBuffer()));
  process.on('exit', () => rmSync(pageBody, { force: true }));
  const ceilings = {
    http: await startCeiling('http'),
    express: await startCeiling('express'),
    expressBody: await startCeiling('express-body', pageBody),
    expressRedis: await startCeiling('express-redis-body', pageBody),
    skeleton: await startSkeleton(),
  };
  const scenarios = [
    [`GET P/stories?${tagsParam}page=1 (100 stories)`, { path: `${P}/stories?${tagsParam}page=1` }],
    // Page 900 of the SAME list as page 1 (issue: "no more than 1.5x slower than page 1").
    [`GET P/stories?${tagsParam}page=900 (100 stories)`, { path: `${P}/stories?${tagsParam}page=900` }],
    // The same pages one request at a time: the service time, without the queueing of 32 connections.
    [
      `GET P/stories?${tagsParam}page=1, 1 connection`,
      { path: `${P}/stories?${tagsParam}page=1`, connections: 1 },
    ],
    [
      `GET P/stories?${tagsParam}page=900, 1 connection`,
      { path: `${P}/stories?${tagsParam}page=900`, connections: 1 },
    ],
    ['GET P/stories/{id} (random)', { path: () => `${P}/stories/${rand(STORIES)}` }],
    ['POST P/stories', { method: 'POST', path: `${P}/stories`, body: (i) => ({ text: `bench ${i}` }) }],
    // Different stories of one board from every connection: each move queues for that board's lock.
    [
      SINGLE_MOVES,
      {
        method: 'PUT',
        path: () => `${P}/stories/${rand(STORIES)}`,
        body: (i) => ({ phase: middle[i % middle.length] }),
      },
    ],
    // Every read a response-cache miss (an argument the API ignores, different each time): what the first read
    // after each change pays, and what every page cost before the cache.
    [
      `GET P/stories?${tagsParam}page=1, every read a cache miss`,
      { path: () => `${P}/stories?${tagsParam}page=1&bench-miss=${++missSerial}` },
    ],
    // The board changing under its readers: each move advances the board's version, so the next read renders.
    [
      `GET P/stories?${tagsParam}page=1 while ${WRITE_RATE} moves/s`,
      {
        path: `${P}/stories?${tagsParam}page=1`,
        alongside: {
          method: 'PUT',
          path: () => `${P}/stories/${rand(STORIES)}`,
          body: (i) => ({ phase: middle[i % middle.length] }),
          overallRate: WRITE_RATE,
        },
      },
    ],
    // As browsers and most HTTP clients ask: the cached answer goes out compressed once, not once per request.
    [
      `GET P/stories?${tagsParam}page=1, Accept-Encoding: gzip`,
      { path: `${P}/stories?${tagsParam}page=1`, headers: { 'Accept-Encoding': 'gzip' } },
    ],
    // The same creates as scenario 6, each with its own Idempotency-Key: what keeping answers for retries costs
    // (the body read first, a claim and a completion in Redis, the answer sealed).
    [
      IDEMPOTENT_POST,
      {
        method: 'POST',
        path: `${P}/stories`,
        body: (i) => ({ text: `bench idempotent ${i}` }),
        headers: () => ({ 'Idempotency-Key': `"${randomUUID()}"` }),
      },
    ],
    // The same moves spread over BOARDS boards: what a write costs when it rarely waits for another's lock.
    [
      `PUT P/stories/{id} phase move, ${BOARDS} boards (uncontended)`,
      {
        method: 'PUT',
        path: (i) => {
          const board = boards[i % boards.length];
          return `/api/v1/projects/${board.projectId}/stories/${rand(BOARD_STORIES)}`;
        },
        body: (i) => ({ phase: boards[i % boards.length].phaseIds[1 + (Math.floor(i / boards.length) % 3)] }),
      },
    ],
    [
      `POST P/stories, ${BOARDS} boards (uncontended)`,
      {
        method: 'POST',
        path: (i) => `/api/v1/projects/${boards[i % boards.length].projectId}/stories`,
        body: (i) => ({ text: `bench ${i}` }),
      },
    ],
    // Children of random stories of the big board: a task or a comment locks its story, not the board.
    [
      'POST P/stories/{id}/tasks (random story)',
      {
        method: 'POST',
        path: () => `${P}/stories/${rand(STORIES)}/tasks`,
        body: (i) => ({ text: `task ${i}` }),
      },
    ],
    [
      'POST P/stories/{id}/comments (random story)',
      {
        method: 'POST',
        path: () => `${P}/stories/${rand(STORIES)}/comments`,
        body: (i) => ({ text: `comment ${i}` }),
      },
    ],
    // Search (issue 30) on the big board: words every story of a first word has (2,000 matches, of which 1,000 are
    // ranked), two words together (50 matches), and one story's number (1 match).
    [
      SEARCH_PAIR,
      { path: (i) => `${P}/search?q=${FIRST_WORDS[i % 50]}+${SECOND_WORDS[Math.floor(i / 50) % 40]}` },
    ],
    [
      'GET P/search?q=<one word> (2,000 matches, 1,000 ranked)',
      { path: (i) => `${P}/search?q=${FIRST_WORDS[i % 50]}` },
    ],
    ['GET P/search?q=<a story number> (1 match)', { path: () => `${P}/search?q=${rand(STORIES)}` }],
    // 100 moves in one request (issue 30): cards a second against scenario 7's single moves on the same board.
    [
      BULK_MOVES,
      {
        method: 'PUT',
        path: `${P}/stories/bulk`,
        body: (i) => ({
          stories: distinctStories(100, STORIES).map((id, n) => ({
            id,
            phase: middle[(i + n) % middle.length],
          })),
        }),
      },
    ],
    // Issue 31: what the framework and node itself serve on this machine in this run (the cached page is
    // compared with them), a move one at a time (every hop's latency, no batching), and one story read again
    // and again (the cached single-story path).
    [HTTP_CEILING, { url: ceilings.http.url, path: '/' }],
    [EXPRESS_CEILING, { url: ceilings.express.url, path: '/' }],
    [
      ONE_MOVE,
      {
        method: 'PUT',
        connections: 1,
        path: (i) => {
          const board = boards[i % boards.length];
          return `/api/v1/projects/${board.projectId}/stories/${rand(BOARD_STORIES)}`;
        },
        body: (i) => ({ phase: boards[i % boards.length].phaseIds[1 + (Math.floor(i / boards.length) % 3)] }),
      },
    ],
    ['GET P/stories/{id}, the same story (cached)', { path: `${P}/stories/${Math.ceil(STORIES / 2)}` }],
    [CACHED_PAGE, { path: `${P}/stories?page=1` }],
    // Scenario 16's searches, each a response-cache miss (searches are cached under the board version since
    // issue 31): what a search costs when the board changed since it was last asked.
    [
      `${SEARCH_PAIR}, every search a cache miss`,
      {
        path: (i) =>
          `${P}/search?q=${FIRST_WORDS[i % 50]}+${SECOND_WORDS[Math.floor(i / 50) % 40]}&bench-miss=${++missSerial}`,
      },
    ],
    // The cached page's ceilings (issue 31): express sending the same bytes, and after one Redis round trip.
    [EXPRESS_BODY_CEILING, { url: ceilings.expressBody.url, path: '/' }],
    [EXPRESS_REDIS_CEILING, { url: ceilings.expressRedis.url, path: '/' }],
    // A move's skeleton (issue 31): the same hops, libraries and statements as a move, none of the work. Against
    // scenario 22 (one connection) and 12 (32 connections over as many boards).
    ...(ceilings.skeleton
      ? [
          [`${SKELETON_MOVE}, 1 connection`, { ...skeletonMove(ceilings.skeleton.url), connections: 1 }],
          [`${SKELETON_MOVE}, ${BOARDS} boards`, skeletonMove(ceilings.skeleton.url)],
        ]
      : []),
  ];
  const only = optionValue('--only');
  const chosen = only
    ? only
        .split(',')
        .map((n) => scenarios[Number(n) - 1])
        .filter(Boolean)
    : scenarios;
  // What the stack costs at rest, process by process: subtracted from the work a scenario leaves behind.
  await waitUntilQuiet({ restingRate: 300, pending: outboxBacklog });
  const resting = await restingRates(STACK_HOME);
  log(`at rest: ${resting.total.toFixed(0)} CPU ms/s (${describe(resting, (ms) => ms.toFixed(0))})`);
  // A scenario starts when the previous one's work (outbox relays, Kafka, consumers) is done.
  const settle = () => waitUntilQuiet({ restingRate: resting.total, pending: outboxBacklog });
  const rows = [];
  const perProcess = [];
  for (const [title, options] of chosen) {
    await settle();
    log(`warm-up: ${title}`);
    await run(title, { keys, ...options, duration: WARMUP });
    await settle();
    log(
      `measuring: ${title} (${options.connections ?? CONNECTIONS} connections, ${options.duration ?? DURATION} s)`,
    );
    const [start, timed] = await Promise.all([cpuSnapshot(STACK_HOME), timings()]);
    const { result } = await run(title, { keys, ...options });
    const [end, timedAfter] = await Promise.all([cpuSnapshot(STACK_HOME), timings()]);
    const [gatewayMs, boardsMs, lockMs] = timed.slice(0, 3).map((before, i) => meanMs(before, timedAfter[i]));
    const [batchBefore, batchAfter] = [timed[3], timedAfter[3]];
    const transactions = batchBefore && batchAfter ? batchAfter.count - batchBefore.count : 0;
    const writesPerTransaction =
      transactions > 0 ? ((batchAfter.sum - batchBefore.sum) / transactions).toFixed(1) : '-';
    // How much of the window a board lock was held: the holds' total over the window's length.
    const [lockBefore, lockAfter] = [timed[2], timedAfter[2]];
    const lockSeconds = lockBefore && lockAfter ? lockAfter.sum - lockBefore.sum : 0;
    // The work the requests left behind, measured until the stack is quiet again.
    const { quiet, busyMs } = await settle();
    const window = cpuBetween(start, end);
    const deferred = deferredCpu(end, await cpuSnapshot(STACK_HOME), resting);
    if (!quiet) log(`  the stack was still busy ${(busyMs / 1000).toFixed(0)} s after the scenario`);
    const requests = result.requests.total;
    const perRequest = (ms) => (ms / requests).toFixed(2);
    rows.push({
      scenario: title,
      'req/s': Math.round(result.requests.average),
      'p50 ms': result.latency.p50,
      'p97.5 ms': result.latency.p97_5,
      'p99 ms': result.latency.p99,
      requests,
      errors: result.errors + result.timeouts + result.non2xx,
      'not 2xx': notOk(result),
      // What one request costs the whole machine (every service, the databases and this load generator), which
      // queueing does not blur: the figure to compare between runs on a noisy host. It counts the work done
      // after the measured window for the requests made in it (`deferred`, e.g. events relayed and consumed).
      'CPU ms/req': perRequest(window.total + deferred.total),
      'in window': perRequest(window.total),
      deferred: perRequest(deferred.total),
      'deferred s': (busyMs / 1000).toFixed(1),
      'gateway ms': gatewayMs,
      'boards ms': boardsMs,
      'lock ms': lockMs,
      'lock held %': lockMs === '-' ? '-' : ((lockSeconds * 100) / ((end.at - start.at) / 1000)).toFixed(0),
      'writes/tx': writesPerTransaction,
    });
    const row = { scenario: title };
    for (const name of Object.keys(window)) row[name] = perRequest(window[name] + (deferred[name] ?? 0));
    perProcess.push(row);
  }
  console.log(
    `\nFlowboard board API, ${STORIES.toLocaleString('en')} stories, ${CONNECTIONS} connections, ${DURATION} s per scenario`,
  );
  console.table(rows);
  console.log(
    'CPU ms per request by process (in the window and deferred; `other`: the rest of the machine):',
  );
  console.table(perProcess);
  // The issue's targets next to what was measured (rows in the order of `scenarios`). A scenario with errors
  // measured something else (429s and timeouts have their own latency): its figures are flagged, not compared.
  const [page1, page900, , , single] = rows;
  const flag = (...measured) =>
    measured.some((row) => row.errors > 0) ? ' — NOT VALID: the scenario had errors (see "not 2xx")' : '';
  if (!only)
    console.log(
      [
        `page of 100, 32 connections: p99 ${page1['p99 ms']} ms (target < 50 ms)${flag(page1)}`,
        `page 900 / page 1 at 32 connections, p50: ${(page900['p50 ms'] / page1['p50 ms']).toFixed(2)}x (target <= 1.5x)${flag(page1, page900)}`,
        `single-story GET: ${single['req/s']} req/s (target >= 2,000)${flag(single)}`,
      ].join('\n'),
    );
  const plainPost = rows.find((row) => row.scenario === 'POST P/stories');
  const keyedPost = rows.find((row) => row.scenario === IDEMPOTENT_POST);
  if (plainPost && keyedPost)
    console.log(
      `Idempotency-Key on POST: ${keyedPost['req/s']} req/s, ${keyedPost['CPU ms/req']} CPU ms/req ` +
        `(without: ${plainPost['req/s']} req/s, ${plainPost['CPU ms/req']} CPU ms/req)${flag(plainPost, keyedPost)}`,
    );
  const search = rows.find((row) => row.scenario === SEARCH_PAIR);
  if (search)
    console.log(`search, 32 connections: p99 ${search['p99 ms']} ms (target < 50 ms)${flag(search)}`);
  const singleMoves = rows.find((row) => row.scenario === SINGLE_MOVES);
  const bulkMoves = rows.find((row) => row.scenario === BULK_MOVES);
  if (singleMoves && bulkMoves)
    console.log(
      `moves on one board: ${bulkMoves['req/s'] * 100} cards/s in bulk requests of 100, ${singleMoves['req/s']}/s one ` +
        `by one: ${((bulkMoves['req/s'] * 100) / singleMoves['req/s']).toFixed(1)}x (target >= 10x)${flag(singleMoves, bulkMoves)}`,
    );
  const express = rows.find((row) => row.scenario === EXPRESS_CEILING);
  const nodeHttp = rows.find((row) => row.scenario === HTTP_CEILING);
  const cachedPage = rows.find((row) => row.scenario === CACHED_PAGE);
  if (express && nodeHttp && cachedPage)
    console.log(
      `cached page of 100: ${cachedPage['req/s']} req/s = ${((cachedPage['req/s'] * 100) / express['req/s']).toFixed(0)} % ` +
        `of express hello-world (${express['req/s']}; target >= 67 %), ` +
        `${((cachedPage['req/s'] * 100) / nodeHttp['req/s']).toFixed(0)} % of node http (${nodeHttp['req/s']})` +
        flag(cachedPage),
    );
  const expressBody = rows.find((row) => row.scenario === EXPRESS_BODY_CEILING);
  const expressRedis = rows.find((row) => row.scenario === EXPRESS_REDIS_CEILING);
  if (expressBody && expressRedis && cachedPage)
    console.log(
      `cached page against express sending its bytes: ${((cachedPage['req/s'] * 100) / expressBody['req/s']).toFixed(0)} % ` +
        `(${expressBody['req/s']} req/s), and after one Redis round trip: ` +
        `${((cachedPage['req/s'] * 100) / expressRedis['req/s']).toFixed(0)} % (${expressRedis['req/s']} req/s)`,
    );
  const oneMove = rows.find((row) => row.scenario === ONE_MOVE);
  if (oneMove)
    console.log(`a move at one connection: p50 ${oneMove['p50 ms']} ms (target <= 2.5 ms)${flag(oneMove)}`);
  const failed = rows.filter((row) => row.errors > 0).map((row) => row.scenario);
  if (failed.length) console.log(`errors in: ${failed.join('; ')} (429: raise BENCH_KEYS)`);
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  console.log(
    `${os.cpus().length} CPUs (${os.cpus()[0]?.model}), load average 1/5/15 min at the end: ${load}`,
  );
  if (!only || process.argv.includes('--sync')) await fullSync(P, keys[0]);
  if (process.argv.includes('--board')) {
    // The whole board in one response (every story of every phase): one request at a time, timed.
    for (let n = 1; n <= 2; n++) {
      const t0 = Date.now();
      const res = await fetch(`${GATEWAY_URL}${P}/phases?with=stories`, {
        headers: { 'X-Zen-ApiKey': keys[0] },
      });
      const bytes = (await res.arrayBuffer()).byteLength;
      log(
        `GET P/phases?with=stories: ${res.status}, ${(bytes / 1e6).toFixed(1)} MB in ${Date.now() - t0} ms`,
      );
    }
  }
  await backlogDb?.end();
  for (const ceiling of Object.values(ceilings)) ceiling?.stop();
}

/**
 * A client's first full sync of the big board (issue 30): `updatedSince=start`, 1,000 stories a page, following
 * `nextCursor`, one request at a time; then an incremental sync from the token it ended with. Prints the time.
 */
async function fullSync(P, key) {
  const get = async (query) => {
    const res = await fetch(`${GATEWAY_URL}${P}/stories?${query}`, { headers: { 'X-Zen-ApiKey': key } });
    if (res.status !== 200) throw new Error(`sync: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const t0 = performance.now();
  let page = await get('updatedSince=start&pageSize=1000');
  let stories = page.items.length;
  let pages = 1;
  while (page.nextCursor) {
    page = await get(`cursor=${encodeURIComponent(page.nextCursor)}&pageSize=1000`);
    stories += page.items.length;
    pages += 1;
  }
  const seconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const since = await get(`updatedSince=${encodeURIComponent(page.syncToken)}&pageSize=1000`);
  console.log(
    `full sync by cursor: ${stories.toLocaleString('en')} stories in ${pages} pages, ${seconds.toFixed(1)} s ` +
      `(${Math.round(stories / seconds).toLocaleString('en')} stories/s; target < 10 s); the next sync: ` +
      `${since.items.length} changed, ${since.deleted?.length ?? 0} deleted, ${(performance.now() - t1).toFixed(0)} ms`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
