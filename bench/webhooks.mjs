// Webhook delivery benchmark (`npm run bench:webhooks`, docs/benchmarks.md), against the RUNNING local stack
// (its webhooks service must allow loopback targets: the local stack's WEBHOOK_ALLOWED_HOSTS does by default).
//
// A receiver on loopback checks every signature and notes when each event arrives. A project gets one webhook for
// `story.created`; then stories are created through the API, and each story's latency is from just before its
// POST was sent to its event's arrival at the receiver: gateway → boards (outbox) → Kafka → webhooks (ingest,
// render with membership's names, claim, sign) → receiver.
//   1. paced: BENCH_WEBHOOK_RATE creates a second for BENCH_WEBHOOK_SECONDS: the latency of a quiet pipeline;
//   2. burst: BENCH_WEBHOOK_BURST creates, BENCH_WEBHOOK_CONCURRENCY at a time: events delivered per second
//      (first to last arrival) and the latency under a backlog.
// Environment: GATEWAY_URL (bench/run.sh-style stacks: FLOWBOARD_GATEWAY_PORT), BENCH_WEBHOOK_RATE (20),
// BENCH_WEBHOOK_SECONDS (10), BENCH_WEBHOOK_BURST (2000), BENCH_WEBHOOK_CONCURRENCY (16).
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { gatewayApi } from './gateway-api.mjs';

const env = (name, fallback) => process.env[name] ?? fallback;
const GATEWAY_URL = env('GATEWAY_URL', `http://127.0.0.1:${env('FLOWBOARD_GATEWAY_PORT', '8080')}`);
const RATE = Number(env('BENCH_WEBHOOK_RATE', '20'));
const SECONDS = Number(env('BENCH_WEBHOOK_SECONDS', '10'));
const BURST = Number(env('BENCH_WEBHOOK_BURST', '2000'));
const CONCURRENCY = Number(env('BENCH_WEBHOOK_CONCURRENCY', '16'));
// The gateway allows 1,200 requests a minute per key; the burst rotates over enough keys not to meet the limit.
const KEYS = Math.max(2, Math.ceil((RATE * SECONDS + BURST) / 1000) + 1);
const ARRIVAL_TIMEOUT_MS = 120_000;

const log = (message) => console.log(`[bench:webhooks] ${message}`);

const api = gatewayApi(GATEWAY_URL);

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` under the secret's bytes. */
function signatureValid(secret, headers, body) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
    .digest();
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .some((candidate) => {
      const given = Buffer.from(candidate.replace(/^v1,/, ''), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** Arrival times by story id; every request is checked (a bad signature fails the run). */
function startReceiver() {
  const arrivals = new Map();
  const waiters = new Map();
  let secret = '';
  let badSignatures = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      if (!signatureValid(secret, req.headers, body)) badSignatures++;
      res.writeHead(204).end();
      const event = JSON.parse(body);
      const key = event.type === 'story.created' ? event.data.id : event.type;
      if (!arrivals.has(key)) arrivals.set(key, at);
      waiters.get(key)?.();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/hooks`,
        arrivals,
        setSecret: (value) => (secret = value),
        badSignatures: () => badSignatures,
        arrived: (key) =>
          arrivals.has(key)
            ? Promise.resolve()
            : new Promise((done, fail) => {
                const timer = setTimeout(() => fail(new Error(`no event for ${key}`)), ARRIVAL_TIMEOUT_MS);
                waiters.set(key, () => (clearTimeout(timer), done()));
              }),
        close: () => new Promise((done) => server.close(done)),
      }),
    ),
  );
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function createStory(projectId, key, n, sent) {
  const t0 = performance.now();
  const story = await api(`/api/v1/projects/${projectId}/stories`, {
    method: 'POST',
    key,
    body: { text: `Webhook bench ${n}` },
  });
  sent.set(story.id, t0);
  return story.id;
}

function summary(title, sent, arrivals, startedAt) {
  const latencies = [...sent].map(([id, t0]) => arrivals.get(id) - t0).sort((a, b) => a - b);
  const times = [...sent.keys()].map((id) => arrivals.get(id)).sort((a, b) => a - b);
  const spanS = (times.at(-1) - startedAt) / 1000;
  return {
    scenario: title,
    events: latencies.length,
    'delivered/s': Math.round(latencies.length / spanS),
    'p50 ms': Math.round(percentile(latencies, 50)),
    'p99 ms': Math.round(percentile(latencies, 99)),
    'max ms': Math.round(latencies.at(-1)),
  };
}

async function main() {
  const receiver = await startReceiver();
  const suffix = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const user = await api('/api/v1/users', {
    method: 'POST',
    body: { userName: `bench-wh-${suffix}`, email: `bench-wh-${suffix}@example.test`, name: 'Bench' },
  });
  const keys = [user.apiKey];
  while (keys.length < KEYS)
    keys.push((await api('/api/v1/me/apikeys', { method: 'POST', key: user.apiKey })).key);
  const project = await api('/api/v1/projects', {
    method: 'POST',
    key: user.apiKey,
    body: { name: `Bench ${suffix}` },
  });
  const webhook = await api(`/api/v1/projects/${project.id}/webhooks`, {
    method: 'POST',
    key: user.apiKey,
    body: { url: receiver.url, eventTypes: ['story.created'] },
  });
  receiver.setSecret(webhook.secret);
  log(`project ${project.id}, webhook ${webhook.id} → ${receiver.url}`);

  // Warm-up: the first events pay for connections and JIT on every hop.
  const warm = new Map();
  await Promise.all(Array.from({ length: 20 }, (_, n) => createStory(project.id, keys[0], n, warm)));
  await Promise.all([...warm.keys()].map((id) => receiver.arrived(id)));

  log(`paced: ${RATE} creates a second for ${SECONDS} s`);
  const paced = new Map();
  const pacedStart = performance.now();
  const writes = [];
  for (let n = 0; n < RATE * SECONDS; n++) {
    const due = pacedStart + (n * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    writes.push(createStory(project.id, keys[n % keys.length], n, paced));
  }
  await Promise.all((await Promise.all(writes)).map((id) => receiver.arrived(id)));

  log(`burst: ${BURST} creates, ${CONCURRENCY} at a time`);
  const burst = new Map();
  const burstStart = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < BURST) {
        const n = next++;
        await createStory(project.id, keys[n % keys.length], n, burst);
      }
    }),
  );
  const writesS = (performance.now() - burstStart) / 1000;
  log(`burst writes done: ${Math.round(BURST / writesS)} creates/s; waiting for deliveries`);
  await Promise.all([...burst.keys()].map((id) => receiver.arrived(id)));

  console.table([
    summary(`paced ${RATE}/s`, paced, receiver.arrivals, pacedStart),
    summary(`burst ${BURST} (${CONCURRENCY} concurrent)`, burst, receiver.arrivals, burstStart),
  ]);
  const bad = receiver.badSignatures();
  await api(`/api/v1/projects/${project.id}/webhooks/${webhook.id}`, { method: 'DELETE', key: user.apiKey });
  await receiver.close();
  if (bad > 0) throw new Error(`${bad} deliveries had a signature that does not verify`);
  log('every delivery verified (Standard Webhooks signature)');
}

main().catch((err) => {
  console.error(`[bench:webhooks] ${err.stack ?? err}`);
  process.exit(1);
});
