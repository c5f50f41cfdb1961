#!/usr/bin/env node
// Upload benchmark (`npm run bench:upload`): one large file through the gateway (→ files → MinIO) against a
// running local stack, sampling the resident memory of the gateway and files processes (pids from
// $FLOWBOARD_HOME/run) while it streams; then the same file straight into MinIO, for comparison.
// Fails (exit 1) when either process grows by BENCH_MAX_GROWTH_MB or more during the upload (after a 20 MB
// warm-up upload; the growth since before the warm-up, which includes first-use heap growth, is printed too), or
// when the upload is not byte-exact.
//
// Environment: FLOWBOARD_HOME (.flowboard), FLOWBOARD_GATEWAY_PORT (8080), BENCH_UPLOAD_MB (200),
// BENCH_MAX_GROWTH_MB (50). The files service refuses files over its MAX_FILE_BYTES (100 MiB by default):
// start the stack with FLOWBOARD_MAX_FILE_BYTES=262144000 for the 200 MB run.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as Minio from 'minio';

const repo = resolve(import.meta.dirname, '..');
const home = resolve(repo, process.env.FLOWBOARD_HOME ?? '.flowboard');
const gateway = `http://127.0.0.1:${process.env.FLOWBOARD_GATEWAY_PORT ?? 8080}`;
const sizeMb = Number(process.env.BENCH_UPLOAD_MB ?? 200);
const maxGrowthMb = Number(process.env.BENCH_MAX_GROWTH_MB ?? 50);
const MB = 1_000_000;
const size = Math.round(sizeMb * MB);

const fail = (message) => {
  console.error(`bench:upload: ${message}`);
  process.exit(1);
};

/** `export NAME=value` lines of the stack's infra.env. */
function infraEnv() {
  const vars = {};
  let text;
  try {
    text = readFileSync(join(home, 'infra.env'), 'utf8');
  } catch {
    fail(`no ${join(home, 'infra.env')}: start the stack first (npm start), with the same FLOWBOARD_HOME`);
  }
  for (const m of text.matchAll(/^export ([A-Z0-9_]+)=(.*)$/gm)) vars[m[1]] = m[2].replace(/^'(.*)'$/, '$1');
  return vars;
}

const pidOf = (name) => Number(readFileSync(join(home, 'run', `${name}.pid`), 'utf8').trim());

/** Resident set size in bytes, from /proc (Linux). */
function rss(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status);
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb[1]) * 1024;
}

/** Samples every process's RSS every 20 ms until stopped; answers the peak per process. */
function sampler(pids) {
  const peak = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, rss(pid)]));
  const timer = setInterval(() => {
    for (const [name, pid] of Object.entries(pids)) peak[name] = Math.max(peak[name], rss(pid));
  }, 20);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

async function api(path, { method = 'GET', key, body, headers = {} } = {}) {
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: {
      ...(key ? { 'X-Zen-ApiKey': key } : {}),
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) fail(`${method} ${path} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** A multipart upload of `file` with a Content-Length, streamed from disk; answers status and body. */
function uploadThroughGateway(path, key, file, fileSize) {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolvePromise, reject) => {
    const req = http.request(`${gateway}${path}`, {
      method: 'POST',
      headers: {
        'X-Zen-ApiKey': key,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': head.length + fileSize + tail.length,
      },
    });
    req.on('error', reject);
    req.on('response', async (res) => {
      const chunks = [];
      for await (const chunk of res) chunks.push(chunk);
      resolvePromise({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') });
    });
    req.write(head);
    const source = createReadStream(file, { highWaterMark: 1024 * 1024 });
    source.pipe(req, { end: false });
    source.on('end', () => req.end(tail));
    source.on('error', reject);
  });
}

const mbps = (bytes, ms) => (bytes / MB / (ms / 1000)).toFixed(1);
const mb = (bytes) => (bytes / MB).toFixed(1);

async function main() {
  const infra = infraEnv();
  const pids = { gateway: pidOf('gateway'), files: pidOf('files') };
  const dir = await mkdtemp(join(tmpdir(), 'flowboard-bench-'));
  const file = join(dir, 'bench.bin');
  try {
    // The test file: random bytes (incompressible), written in 1 MiB blocks; its hash for the round trip.
    process.stdout.write(`writing a ${sizeMb} MB test file… `);
    const hash = createHash('sha256');
    await pipeline(
      (async function* () {
        for (let left = size; left > 0; left -= 1024 * 1024) {
          const block = randomBytes(Math.min(left, 1024 * 1024));
          hash.update(block);
          yield block;
        }
      })(),
      createWriteStream(file),
    );
    const sha = hash.digest('hex');
    console.log('done');

    // A user whose account can hold the file (operator API), a project and a story.
    const user = await api('/api/v1/users', {
      method: 'POST',
      body: { userName: `bench-${Date.now().toString(36)}`, email: `bench-${Date.now()}@example.test` },
    });
    const token = readFileSync(join(home, 'operator-token'), 'utf8').trim();
    await api(`/api/v1/admin/accounts/${user.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}` },
      body: { storageLimitBytes: 4 * size },
    });
    const project = await api('/api/v1/projects', {
      method: 'POST',
      key: user.apiKey,
      body: { name: 'Bench' },
    });
    const story = await api(`/api/v1/projects/${project.id}/stories`, {
      method: 'POST',
      key: user.apiKey,
      body: { text: 'Bench' },
    });
    const path = `/api/v1/projects/${project.id}/stories/${story.id}/attachments`;

    // Warm-up: a 20 MB upload (several S3 parts) runs every code path once, so the baseline is the steady
    // state of a process that has served uploads, not its start-up heap.
    const cold = { gateway: rss(pids.gateway), files: rss(pids.files) };
    const warm = join(dir, 'warm.bin');
    const warmSize = 20 * MB;
    await pipeline(
      (async function* () {
        for (let left = warmSize; left > 0; left -= 1024 * 1024)
          yield randomBytes(Math.min(left, 1024 * 1024));
      })(),
      createWriteStream(warm),
    );
    const warmed = await uploadThroughGateway(path, user.apiKey, warm, warmSize);
    if (warmed.status !== 200) fail(`warm-up upload → ${warmed.status} ${warmed.body}`);

    const baseline = { gateway: rss(pids.gateway), files: rss(pids.files) };
    const stop = sampler(pids);
    const t0 = performance.now();
    const res = await uploadThroughGateway(path, user.apiKey, file, size);
    const gatewayMs = performance.now() - t0;
    const peak = stop();
    if (res.status === 413) {
      fail(
        `the files service refused a ${sizeMb} MB file (413): its MAX_FILE_BYTES is lower. Restart the ` +
          'services with FLOWBOARD_MAX_FILE_BYTES=262144000 bash deploy/local/services.sh start (after stop).',
      );
    }
    if (res.status !== 200) fail(`upload → ${res.status} ${res.body}`);
    const attachment = JSON.parse(res.body).items[0];

    // Byte-exact: download it back through the gateway and compare hashes.
    const download = await fetch(`${gateway}${path}/${attachment.id}/content`, {
      headers: { 'X-Zen-ApiKey': user.apiKey },
    });
    const back = createHash('sha256');
    for await (const chunk of download.body) back.update(chunk);
    const roundTrip = back.digest('hex') === sha;

    // The same file straight into MinIO (the client's own streaming upload, known length).
    const s3url = new URL(infra.S3_ENDPOINT);
    const s3 = new Minio.Client({
      endPoint: s3url.hostname,
      port: Number(s3url.port || 80),
      useSSL: s3url.protocol === 'https:',
      accessKey: infra.S3_ACCESS_KEY,
      secretKey: infra.S3_SECRET_KEY,
      region: infra.S3_REGION,
      pathStyle: true,
    });
    const directKey = `bench/${randomBytes(16).toString('hex')}`;
    const t1 = performance.now();
    await s3.putObject(infra.S3_BUCKET, directKey, createReadStream(file), (await stat(file)).size);
    const directMs = performance.now() - t1;
    await s3.removeObject(infra.S3_BUCKET, directKey);
    await api(`${path}/${attachment.id}`, { method: 'DELETE', key: user.apiKey });

    const growth = {
      gateway: peak.gateway - baseline.gateway,
      files: peak.files - baseline.files,
    };
    console.log(`\nUpload of ${sizeMb} MB (${size} bytes), one file, multipart with Content-Length`);
    console.log(
      `  through the gateway  ${mbps(size, gatewayMs).padStart(7)} MB/s  (${(gatewayMs / 1000).toFixed(1)} s)`,
    );
    console.log(
      `  direct to MinIO      ${mbps(size, directMs).padStart(7)} MB/s  (${(directMs / 1000).toFixed(1)} s)`,
    );
    for (const name of ['gateway', 'files']) {
      console.log(
        `  ${name.padEnd(8)} RSS ${mb(baseline[name])} MB → peak ${mb(peak[name])} MB: growth ${mb(growth[name])} MB` +
          ` (limit ${maxGrowthMb} MB); ${mb(peak[name] - cold[name])} MB since before the warm-up`,
      );
    }
    console.log(`  round trip (sha256 of the download) ${roundTrip ? 'byte-exact' : 'DIFFERS'}`);
    const ok = roundTrip && growth.gateway < maxGrowthMb * MB && growth.files < maxGrowthMb * MB;
    console.log(ok ? 'PASS' : 'FAIL');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => fail(err.stack ?? String(err)));
