// The Node half of deploy/local/backup.sh: the attachments bucket (with the `minio` client the files service uses)
// and the backup's manifest. Not meant to be run by hand; backup.sh calls it with the stack's S3_* settings in the
// environment.
//
//   node deploy/local/backup.mjs bucket-dump <dir>      every object of the bucket into <dir>/bucket (+ index.json)
//   node deploy/local/backup.mjs bucket-count           the number of objects in the bucket
//   node deploy/local/backup.mjs bucket-load <dir>      the objects of <dir>/bucket back into the bucket
//   node deploy/local/backup.mjs manifest-write <dir> <json>   <dir>/manifest.json: <json> + size and sha256 of every file
//   node deploy/local/backup.mjs manifest-verify <dir>  every file the manifest names is there, with its size and sha256
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as Minio from 'minio';

const [command, dir, extra] = process.argv.slice(2);

function fail(message) {
  console.error(`error: ${message}`);
  process.exit(1);
}

function s3() {
  const missing = ['S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET'].filter(
    (v) => !process.env[v],
  );
  if (missing.length) fail(`no S3 settings (${missing.join(' ')}): run deploy/local/infra.sh start first`);
  const url = new URL(process.env.S3_ENDPOINT);
  const client = new Minio.Client({
    endPoint: url.hostname,
    port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    useSSL: url.protocol === 'https:',
    accessKey: process.env.S3_ACCESS_KEY,
    secretKey: process.env.S3_SECRET_KEY,
    region: process.env.S3_REGION || 'us-east-1',
    pathStyle: true,
  });
  return { client, bucket: process.env.S3_BUCKET };
}

function listKeys({ client, bucket }) {
  return new Promise((resolve, reject) => {
    const keys = [];
    client
      .listObjectsV2(bucket, '', true)
      .on('data', (item) => item.name && keys.push(item.name))
      .on('error', reject)
      .on('end', () => resolve(keys.sort()));
  });
}

async function sha256(file) {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** Object keys become paths under <dir>/bucket: only plain relative ones (the files service's `<project>/<story>/<token>`). */
function objectPath(root, key) {
  const parts = key.split('/');
  if (!key || key.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..'))
    fail(`object key ${JSON.stringify(key)} cannot be stored as a file; this backup does not support it`);
  return path.join(root, 'bucket', ...parts);
}

const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;

async function bucketDump(root) {
  const store = s3();
  const keys = await listKeys(store);
  await mkdir(path.join(root, 'bucket'), { recursive: true });
  const index = [];
  let bytes = 0;
  for (const key of keys) {
    const file = objectPath(root, key);
    await mkdir(path.dirname(file), { recursive: true });
    const { metaData } = await store.client.statObject(store.bucket, key);
    await pipeline(await store.client.getObject(store.bucket, key), createWriteStream(file, { mode: 0o600 }));
    const { size } = await stat(file);
    index.push({ key, size, contentType: metaData['content-type'] ?? 'application/octet-stream' });
    bytes += size;
  }
  await writeFile(path.join(root, 'bucket', 'index.json'), `${JSON.stringify(index, null, 2)}\n`, {
    mode: 0o600,
  });
  console.log(`${keys.length} objects, ${mib(bytes)}`);
}

async function bucketLoad(root) {
  const store = s3();
  const index = JSON.parse(await readFile(path.join(root, 'bucket', 'index.json'), 'utf8'));
  if (!(await store.client.bucketExists(store.bucket))) await store.client.makeBucket(store.bucket);
  let bytes = 0;
  for (const { key, size, contentType } of index) {
    await store.client.fPutObject(store.bucket, key, objectPath(root, key), { 'Content-Type': contentType });
    bytes += size;
  }
  console.log(`${index.length} objects, ${mib(bytes)}`);
}

async function filesUnder(root, sub = '') {
  const out = [];
  for (const entry of await readdir(path.join(root, sub), { withFileTypes: true })) {
    const rel = path.join(sub, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(root, rel)));
    else if (rel !== 'manifest.json') out.push(rel);
  }
  return out.sort();
}

async function manifestWrite(root, json) {
  const files = {};
  for (const rel of await filesUnder(root)) {
    const file = path.join(root, rel);
    files[rel] = { size: (await stat(file)).size, sha256: await sha256(file) };
  }
  const manifest = { ...JSON.parse(json), files };
  await writeFile(path.join(root, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, {
    mode: 0o600,
  });
  const total = Object.values(files).reduce((sum, f) => sum + f.size, 0);
  console.log(`${Object.keys(files).length} files, ${mib(total)}`);
}

async function manifestVerify(root) {
  let manifest;
  try {
    manifest = JSON.parse(await readFile(path.join(root, 'manifest.json'), 'utf8'));
  } catch (err) {
    fail(`${root}/manifest.json is missing or unreadable (${err.message}): not a complete backup`);
  }
  const bad = [];
  for (const [rel, { size, sha256: expected }] of Object.entries(manifest.files)) {
    const file = path.join(root, rel);
    const actual = await stat(file).catch(() => undefined);
    if (!actual) bad.push(`${rel}: missing`);
    else if (actual.size !== size) bad.push(`${rel}: ${actual.size} bytes, the manifest says ${size}`);
    else if ((await sha256(file)) !== expected) bad.push(`${rel}: sha256 differs from the manifest's`);
  }
  if (bad.length) fail(`the backup in ${root} is damaged:\n  ${bad.join('\n  ')}`);
  console.log(
    `${Object.keys(manifest.files).length} files match the manifest (backup of ${manifest.createdAt})`,
  );
}

try {
  switch (command) {
    case 'bucket-dump':
      await bucketDump(dir);
      break;
    case 'bucket-count':
      console.log((await listKeys(s3())).length);
      break;
    case 'bucket-load':
      await bucketLoad(dir);
      break;
    case 'manifest-write':
      await manifestWrite(dir, extra);
      break;
    case 'manifest-verify':
      await manifestVerify(dir);
      break;
    default:
      fail(`unknown command ${command ?? '(none)'}`);
  }
} catch (err) {
  fail(err.message);
}
