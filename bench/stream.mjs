// Change stream benchmark (`npm run bench:stream`, docs/benchmarks.md), against the RUNNING local stack.
//
// BENCH_STREAM_SUBSCRIBERS SSE clients on the one gateway, BENCH_STREAM_PER_PROJECT to a project (boards watched by
// a team each), while stories are created at BENCH_STREAM_RATE a second for BENCH_STREAM_SECONDS, spread over the
// projects. Each change reaches every subscriber of its project: gateway → boards (outbox) → Kafka → the gateway's
// feed (read once, names from membership) → the hub → each connection. Printed:
//   - commit-to-client latency, p50/p99/max: from the moment the create's 200 came back (the change is committed)
//     to its arrival at a subscriber, over every (change, subscriber) pair;
//   - the gateway's resident memory before the subscribers, with them idle, and after the load, per 1,000;
//   - the gateway's CPU per delivered event (its process's user+system time over the load, /proc).
// The gateway's pid comes from the stack's run directory (FLOWBOARD_HOME, default .flowboard). The stream allows
// STREAM_MAX_PER_KEY (10) connections per key, so the subscribers are spread over keys of their own.
// Environment: GATEWAY_URL (or FLOWBOARD_GATEWAY_PORT), BENCH_STREAM_SUBSCRIBERS (1000), BENCH_STREAM_PER_PROJECT
// (10), BENCH_STREAM_RATE (200), BENCH_STREAM_SECONDS (20).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { gatewayApi } from './gateway-api.mjs';

const env = (name, fallback) => process.env[name] ?? fallback;
const GATEWAY_URL = env('GATEWAY_URL', `http://127.0.0.1:${env('FLOWBOARD_GATEWAY_PORT', '8080')}`);
const SUBSCRIBERS = Number(env('BENCH_STREAM_SUBSCRIBERS', '1000'));
const PER_PROJECT = Number(env('BENCH_STREAM_PER_PROJECT', '10'));
const RATE = Number(env('BENCH_STREAM_RATE', '200'));
const SECONDS = Number(env('BENCH_STREAM_SECONDS', '20'));
const STREAMS_PER_KEY = 10;
const WRITES_PER_KEY_PER_SECOND = 15; // under the 1,200 a minute a key may send
const HOME = path.resolve(env('FLOWBOARD_HOME', '.flowboard'));
const ARRIVAL_TIMEOUT_MS = 60_000;

const log = (message) => console.log(`[bench:stream] ${message}`);

const api = gatewayApi(GATEWAY_URL);

/** The gateway process's resident memory (bytes) and CPU time so far (ms), from /proc. */
function gatewayProcess() {
  const pid = readFileSync(path.join(HOME, 'run', 'gateway.pid'), 'utf8').trim();
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of the line)
  return { rss, cpuMs: ticks * 10 }; // USER_HZ is 100 on Linux
}

/** One SSE connection: calls `onChange(storyNumber, arrivedAt)` for each story.created of the bench. */
function subscribe(projectId, key, onChange) {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${GATEWAY_URL}/api/v1/projects/${projectId}/events`,
      { headers: { Accept: 'text/event-stream', 'X-Zen-ApiKey': key }, agent: false },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`subscribe ${projectId} → ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk) => {
          const now = performance.now();
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const match = /"text":"bench (\d+)"/.exec(block);
            if (match && block.startsWith('event: story.created')) onChange(Number(match[1]), now);
          }
        });
        resolve(() => req.destroy());
      },
    );
    req.on('error', reject);
  });
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const mib = (bytes) => (bytes / 1024 / 1024).toFixed(1);

async function main() {
  const projects = Math.ceil(SUBSCRIBERS / PER_PROJECT);
  const writeKeys = Math.ceil(RATE / WRITES_PER_KEY_PER_SECOND);
  const streamKeys = Math.ceil(SUBSCRIBERS / STREAMS_PER_KEY);
  log(
    `${SUBSCRIBERS} subscribers, ${PER_PROJECT} a project (${projects} projects); ${RATE} creates/s for ${SECONDS} s`,
  );
  const suffix = Date.now().toString(36);
  const owner = await api('/api/v1/users', {
    method: 'POST',
    body: {
      userName: `bench-stream-${suffix}`,
      email: `bench-stream-${suffix}@example.test`,
      name: 'Bench Stream',
    },
  });
  const keys = [];
  for (let i = 0; i < writeKeys + streamKeys; i++)
    keys.push((await api('/api/v1/me/apikeys', { method: 'POST', key: owner.apiKey })).key);
  const projectIds = [];
  // Made with each key in turn: one key would pass its rate limit at 10,000 subscribers (1,000 projects).
  for (let i = 0; i < projects; i++)
    projectIds.push(
      (
        await api('/api/v1/projects', {
          method: 'POST',
          key: keys[i % keys.length],
          body: { name: `bench ${i}` },
        })
      ).id,
    );
  log(`made ${projects} projects and ${keys.length} keys`);

  const before = gatewayProcess();
  const committedAt = new Map();
  const latencies = [];
  let arrivals = 0;
  const onChange = (story, arrivedAt) => {
    arrivals++;
    const committed = committedAt.get(story);
    if (committed !== undefined) latencies.push(arrivedAt - committed);
  };
  const closers = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const key = keys[writeKeys + Math.floor(i / STREAMS_PER_KEY)];
    closers.push(await subscribe(projectIds[i % projects], key, onChange));
    if ((i + 1) % 1000 === 0) log(`${i + 1} subscribers connected`);
  }
  await new Promise((r) => setTimeout(r, 3_000));
  const idle = gatewayProcess();
  log(
    `connected; gateway RSS ${mib(before.rss)} MiB before, ${mib(idle.rss)} MiB with ${SUBSCRIBERS} idle subscribers`,
  );

  const total = RATE * SECONDS;
  const subscribersOf = (p) => Math.floor(SUBSCRIBERS / projects) + (p < SUBSCRIBERS % projects ? 1 : 0);
  let expected = 0;
  for (let n = 0; n < total; n++) expected += subscribersOf(n % projects);
  const loadStart = gatewayProcess();
  const t0 = performance.now();
  let failed = 0;
  const inFlight = [];
  for (let n = 0; n < total; n++) {
    const due = t0 + (n * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const key = keys[n % writeKeys];
    inFlight.push(
      fetch(`${GATEWAY_URL}/api/v1/projects/${projectIds[n % projects]}/stories`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Zen-ApiKey': key },
        body: JSON.stringify({ text: `bench ${n}` }),
      }).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.status === 200) committedAt.set(n, performance.now());
          else failed++;
        },
        () => failed++,
      ),
    );
  }
  await Promise.all(inFlight);
  const sendSeconds = (performance.now() - t0) / 1000;
  const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
  while (arrivals < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  const loadEnd = gatewayProcess();
  for (const close of closers) close();

  latencies.sort((a, b) => a - b);
  const cpuPerEvent = (loadEnd.cpuMs - loadStart.cpuMs) / Math.max(1, arrivals);
  log(
    `sent ${total} creates in ${sendSeconds.toFixed(1)} s (${(total / sendSeconds).toFixed(0)}/s), failed: ${failed}`,
  );
  log(`delivered ${arrivals} of ${expected} expected (change × subscriber)`);
  log(
    `commit-to-client latency: p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, ` +
      `max ${latencies.at(-1).toFixed(0)} ms`,
  );
  log(
    `gateway RSS: ${mib(before.rss)} MiB before, ${mib(idle.rss)} idle with subscribers, ${mib(loadEnd.rss)} after the load; ` +
      `${mib(((idle.rss - before.rss) * 1000) / SUBSCRIBERS)} MiB per 1,000 subscribers (idle)`,
  );
  log(
    `gateway CPU: ${(loadEnd.cpuMs - loadStart.cpuMs).toFixed(0)} ms over the load, ${(cpuPerEvent * 1000).toFixed(1)} µs per delivered event`,
  );
  if (failed > 0 || arrivals < expected) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
