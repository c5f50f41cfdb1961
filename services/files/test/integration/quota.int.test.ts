import { randomBytes } from 'node:crypto';
import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { makeEvent, projectDeletedV1, storyDeletedV1 } from '@flowboard/events';
import { createKafka, KafkaPublisher } from '@flowboard/messaging';
import { createPool, migrate } from '@flowboard/pg-kit';
import type { files } from '@flowboard/proto';
import { createLogger } from '@flowboard/service-kit';
import { waitFor } from '@flowboard/testing';
import type { BlobStore } from '../../src/application/ports';
import { makeSweepStorage } from '../../src/application/sweep-storage';
import type { FilesApp } from '../../src/app';
import { createMinioBlobStore, createMinioClient } from '../../src/blob/minio-blob-store';
import { attachmentRepository } from '../../src/db/attachment-repository';
import { MIGRATIONS_DIR } from '../../src/db/migrations-dir';
import { env, randomId, startFiles, testConfig } from './harness';
import { quotaRepository } from '../../src/db/quota-repository';

// The storage quota, deletion events and the sweeper against real PostgreSQL, MinIO and Kafka.
jest.setTimeout(60_000);

const USER = 42;

let app: FilesApp;
let base: string;
let client: files.FilesServiceClient;
const db = createPool({
  connectionString: env.FILES_DATABASE_URL,
  schema: 'files',
  applicationName: 'files-quota-test',
  max: 3,
});
const s3Options = {
  endpoint: env.S3_ENDPOINT,
  region: env.S3_REGION,
  accessKey: env.S3_ACCESS_KEY,
  secretKey: env.S3_SECRET_KEY,
};
const s3 = createMinioClient(s3Options);
const logger = createLogger('files-quota-test', 'silent');
const kafka = createKafka({ brokers: env.KAFKA_BROKERS.split(','), clientId: 'files-quota-test', logger });
const publisher = new KafkaPublisher(kafka);

beforeAll(async () => {
  await migrate(db, { schema: 'files', dir: MIGRATIONS_DIR });
  // Own consumer group: the running service keeps its partitions.
  ({ app, base, client } = await startFiles(testConfig(`files-quota-int-${randomId()}`), logger));
});

afterAll(async () => {
  client?.close();
  await publisher.disconnect();
  await app?.stop();
  await db.end();
});

// --- helpers ---------------------------------------------------------------------------------------------

const attachmentsUrl = (p: number, s: number) => `${base}/internal/projects/${p}/stories/${s}/attachments`;
const headers = (account: number, limit: number) => ({
  'x-flowboard-user-id': String(USER),
  'x-flowboard-account-id': String(account),
  'x-flowboard-storage-limit': String(limit),
});

function form(...files: Array<{ name: string; data: Buffer }>): FormData {
  const body = new FormData();
  for (const f of files) body.append('file', new Blob([new Uint8Array(f.data)]), f.name);
  return body;
}

async function upload(p: number, s: number, account: number, limit: number, body: FormData) {
  const res = await fetch(attachmentsUrl(p, s), { method: 'POST', headers: headers(account, limit), body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** An upload without Content-Length (chunked), written in 64 KiB pieces. */
function chunkedUpload(p: number, s: number, account: number, limit: number, data: Buffer) {
  const boundary = `b${randomBytes(8).toString('hex')}`;
  return new Promise<number>((resolve, reject) => {
    const req = http.request(attachmentsUrl(p, s), {
      method: 'POST',
      headers: { ...headers(account, limit), 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="f"; filename="c.bin"\r\n\r\n`);
    for (let i = 0; i < data.length; i += 65_536) req.write(data.subarray(i, i + 65_536));
    req.end(`\r\n--${boundary}--\r\n`);
  });
}

function listObjects(prefix: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const keys: string[] = [];
    s3.listObjectsV2(env.S3_BUCKET, prefix, true)
      .on('data', (item) => item.name && keys.push(item.name))
      .on('error', reject)
      .on('end', () => resolve(keys.sort()));
  });
}

function usage(accountId: number): Promise<files.GetStorageUsageResponse__Output> {
  const metadata = new grpc.Metadata();
  return new Promise((resolve, reject) =>
    client.GetStorageUsage(
      { account_id: accountId },
      metadata,
      { deadline: Date.now() + 10_000 },
      (err, res) => (err || !res ? reject(err ?? new Error('no answer')) : resolve(res)),
    ),
  );
}

function deleteAttachment(p: number, s: number, id: number): Promise<unknown> {
  const metadata = new grpc.Metadata();
  metadata.set('x-flowboard-user-id', String(USER));
  return new Promise((resolve, reject) =>
    client.DeleteAttachment(
      { project_id: p, story_id: s, attachment_id: id },
      metadata,
      { deadline: Date.now() + 10_000 },
      (err, res) => (err ? reject(err) : resolve(res)),
    ),
  );
}

const rowsOf = async (p: number) =>
  (await db.query<{ size_bytes: number }>('SELECT size_bytes FROM attachments WHERE project_id = $1', [p]))
    .rows;

const reservationsOf = async (account: number) =>
  (await db.query('SELECT id FROM upload_reservations WHERE account_id = $1', [account])).rows;

const incompleteUploads = async (prefix: string) =>
  (await s3.listIncompleteUploadsQuery(env.S3_BUCKET, prefix, '', '', '')).uploads;

const sizesOf = (items: unknown) => (items as Array<{ sizeInBytes: number }>).map((a) => a.sizeInBytes);

// --- tests -----------------------------------------------------------------------------------------------

describe('storage quota', () => {
  it('10 concurrent uploads against a limit that fits 3: exactly 3 succeed, usage = bytes stored', async () => {
    const p = randomId();
    const account = randomId();
    const size = 200_000;
    const limit = Math.floor(size * 3.5);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        upload(p, i + 1, account, limit, form({ name: `f${i}.bin`, data: randomBytes(size) })),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 402, 402, 402, 402, 402, 402, 402]);
    for (const refused of results.filter((r) => r.status === 402)) {
      expect(refused.json).toMatchObject({ kind: 'PlanLimitExceeded', problem: 'plan-limit' });
    }
    expect(await usage(account)).toEqual({ used_bytes: 3 * size, reserved_bytes: 0 });
    expect((await rowsOf(p)).map((r) => r.size_bytes)).toEqual([size, size, size]);
    expect(await listObjects(`${p}/`)).toHaveLength(3);
  });

  it('chunked uploads grow their reservations and never pass the limit together', async () => {
    const p = randomId();
    const account = randomId();
    const size = 3 * 1024 * 1024;
    const limit = Math.floor(size * 2.5);
    const statuses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => chunkedUpload(p, i + 1, account, limit, randomBytes(size))),
    );
    const ok = statuses.filter((s) => s === 200).length;
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    expect(ok).toBeLessThanOrEqual(2);
    expect(await usage(account)).toEqual({ used_bytes: ok * size, reserved_bytes: 0 });
    expect(await listObjects(`${p}/`)).toHaveLength(ok);
    // Alone, one more fits exactly as long as room is left.
    if (ok < 2) expect(await chunkedUpload(p, 9, account, limit, randomBytes(size))).toBe(200);
  });

  it('accepts an upload that fills the limit to the byte, refuses one byte more', async () => {
    const p = randomId();
    const account = randomId();
    const data = randomBytes(5000);
    expect((await upload(p, 1, account, 5000 + 10_000, form({ name: 'a', data }))).status).toBe(200);
    // 10 000 bytes left: a chunked body reserves its files' bytes as they arrive, so exactly that much fits.
    expect(await chunkedUpload(p, 1, account, 15_000, randomBytes(10_000))).toBe(200);
    expect(await chunkedUpload(p, 1, account, 15_000, randomBytes(1))).toBe(402);
    expect(await usage(account)).toEqual({ used_bytes: 15_000, reserved_bytes: 0 });
  });

  // fetch sends a Content-Length: the request's upper bound also counts the parts' headers, so near the limit the
  // files' bytes are what decides, counted as they stream.
  it('accepts a file that leaves the account exactly full, refuses one byte more and keeps nothing of it', async () => {
    const p = randomId();
    const account = randomId();
    // Room for more than one growth step (4 MiB) and one MinIO part (8 MiB): the refused file's first part is
    // already stored when its last byte is refused.
    const limit = 10 * 1024 * 1024;
    expect(
      (await upload(p, 1, account, limit, form({ name: 'first', data: randomBytes(100_000) }))).status,
    ).toBe(200);
    const free = limit - 100_000;

    const over = await upload(p, 2, account, limit, form({ name: 'over', data: randomBytes(free + 1) }));
    expect(over.status).toBe(402);
    expect(over.json).toMatchObject({ kind: 'PlanLimitExceeded', problem: 'plan-limit' });
    expect(await listObjects(`${p}/2/`)).toEqual([]);
    expect(await incompleteUploads(`${p}/`)).toEqual([]);
    expect(await rowsOf(p)).toHaveLength(1);
    expect(await reservationsOf(account)).toEqual([]);
    expect(await usage(account)).toEqual({ used_bytes: 100_000, reserved_bytes: 0 });

    const fits = await upload(p, 3, account, limit, form({ name: 'fits', data: randomBytes(free) }));
    expect(fits.status).toBe(200);
    expect(fits.json.items).toEqual([expect.objectContaining({ fileName: 'fits', sizeInBytes: free })]);
    expect(await usage(account)).toEqual({ used_bytes: limit, reserved_bytes: 0 });

    // Exactly full: one byte is refused before anything is stored.
    expect((await upload(p, 4, account, limit, form({ name: 'one', data: randomBytes(1) }))).status).toBe(
      402,
    );
    expect(await listObjects(`${p}/`)).toHaveLength(2);
    expect(await reservationsOf(account)).toEqual([]);
    expect(await usage(account)).toEqual({ used_bytes: limit, reserved_bytes: 0 });
  });

  it('accepts several files in one body that fill the limit exactly; one byte more removes those already stored', async () => {
    const p = randomId();
    const account = randomId();
    const limit = 300_000;
    const files = (last: number) => [
      { name: 'a', data: randomBytes(100_000) },
      { name: 'b', data: randomBytes(150_000) },
      { name: 'c', data: randomBytes(last) },
    ];

    const over = await upload(p, 1, account, limit, form(...files(50_001)));
    expect(over.status).toBe(402);
    expect(over.json).toMatchObject({ kind: 'PlanLimitExceeded', problem: 'plan-limit' });
    expect(await listObjects(`${p}/`)).toEqual([]);
    expect(await rowsOf(p)).toEqual([]);
    expect(await reservationsOf(account)).toEqual([]);
    expect(await usage(account)).toEqual({ used_bytes: 0, reserved_bytes: 0 });

    const fits = await upload(p, 1, account, limit, form(...files(50_000)));
    expect(fits.status).toBe(200);
    expect(sizesOf(fits.json.items)).toEqual([100_000, 150_000, 50_000]);
    expect(await usage(account)).toEqual({ used_bytes: limit, reserved_bytes: 0 });
    expect(await listObjects(`${p}/`)).toHaveLength(3);
  });

  it('concurrent uploads near the limit never overshoot it, and the room they leave still fits to the byte', async () => {
    const p = randomId();
    const account = randomId();
    const size = 300_000;
    const limit = 3 * size;
    // Two uploads' bounds fit whole; the rest race for the last third byte by byte as their files stream.
    let peak = 0;
    let racing = true;
    const sampler = (async () => {
      while (racing) {
        const u = await usage(account);
        peak = Math.max(peak, u.used_bytes + u.reserved_bytes);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        upload(
          p,
          i + 1,
          account,
          limit,
          i % 2 === 0
            ? form({ name: `f${i}`, data: randomBytes(size) })
            : form(
                { name: `a${i}`, data: randomBytes(size / 2) },
                { name: `b${i}`, data: randomBytes(size / 2) },
              ),
        ),
      ),
    ).finally(() => (racing = false));
    await sampler;

    expect(results.every((r) => r.status === 200 || r.status === 402)).toBe(true);
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(2);
    expect(peak).toBeLessThanOrEqual(limit);
    const stored = (await rowsOf(p)).reduce((sum, r) => sum + Number(r.size_bytes), 0);
    expect(stored).toBe(ok * size);
    expect(stored).toBeLessThanOrEqual(limit);
    expect(await usage(account)).toEqual({ used_bytes: stored, reserved_bytes: 0 });
    expect(await reservationsOf(account)).toEqual([]);
    const items = results.flatMap((r) => (r.status === 200 ? (r.json.items as unknown[]) : []));
    expect(await listObjects(`${p}/`)).toHaveLength(items.length);

    // Alone, the room left (a whole upload's worth when none of the racers won it) fits exactly.
    if (stored < limit) {
      const rest = await upload(
        p,
        9,
        account,
        limit,
        form({ name: 'rest', data: randomBytes(limit - stored) }),
      );
      expect(rest.status).toBe(200);
    }
    expect(await usage(account)).toEqual({ used_bytes: limit, reserved_bytes: 0 });
  });

  it('deleting an attachment frees its bytes', async () => {
    const p = randomId();
    const account = randomId();
    const res = await upload(p, 1, account, 10_000, form({ name: 'a', data: randomBytes(6000) }));
    expect(res.status).toBe(200);
    expect((await upload(p, 1, account, 10_000, form({ name: 'b', data: randomBytes(6000) }))).status).toBe(
      402,
    );
    const [item] = res.json.items as Array<{ id: number }>;
    await deleteAttachment(p, 1, item!.id);
    expect(await usage(account)).toEqual({ used_bytes: 0, reserved_bytes: 0 });
    expect((await upload(p, 1, account, 10_000, form({ name: 'b', data: randomBytes(6000) }))).status).toBe(
      200,
    );
  });

  it('refuses an upload without the account headers, storing nothing', async () => {
    const p = randomId();
    const res = await fetch(attachmentsUrl(p, 1), {
      method: 'POST',
      headers: { 'x-flowboard-user-id': String(USER) },
      body: form({ name: 'a', data: randomBytes(10) }),
    });
    expect(res.status).toBe(500);
    expect(await listObjects(`${p}/`)).toEqual([]);
  });

  it('GetStorageUsage is zero for an account that never uploaded, INVALID_ARGUMENT for id 0', async () => {
    expect(await usage(randomId())).toEqual({ used_bytes: 0, reserved_bytes: 0 });
    await expect(usage(0)).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
  });
});

describe('deletion events', () => {
  const publish = async (event: ReturnType<typeof makeEvent>, topic: string, key: number) =>
    publisher.publish(topic, [{ key: String(key), value: JSON.stringify(event) }]);

  it('story-deleted removes the story’s rows and objects, frees the bytes, and refuses later uploads', async () => {
    await waitFor(async () => (app.consuming() ? true : undefined), 30_000, 'consumer joined');
    const p = randomId();
    const account = randomId();
    for (const s of [1, 1, 2]) {
      expect((await upload(p, s, account, 1e9, form({ name: 'a', data: randomBytes(1000) }))).status).toBe(
        200,
      );
    }
    const event = makeEvent(storyDeletedV1, 'test', {
      projectId: p,
      storyId: 1,
      deletedBy: USER,
      deletedAt: new Date().toISOString(),
    });
    await publish(event, storyDeletedV1.topic, p);
    await publish(event, storyDeletedV1.topic, p); // a redelivery is harmless
    await waitFor(
      async () => ((await listObjects(`${p}/1/`)).length === 0 ? true : undefined),
      20_000,
      'gone',
    );
    expect(await listObjects(`${p}/`)).toHaveLength(1);
    expect(await rowsOf(p)).toHaveLength(1);
    expect(await usage(account)).toEqual({ used_bytes: 1000, reserved_bytes: 0 });
    // An upload still addressed to the deleted story cannot bring it back.
    expect((await upload(p, 1, account, 1e9, form({ name: 'late', data: randomBytes(10) }))).status).toBe(
      404,
    );
    expect(await listObjects(`${p}/1/`)).toEqual([]);
    expect(await usage(account)).toEqual({ used_bytes: 1000, reserved_bytes: 0 });
  });

  it('project-deleted removes all the project’s attachments and frees the bytes', async () => {
    await waitFor(async () => (app.consuming() ? true : undefined), 30_000, 'consumer joined');
    const p = randomId();
    const account = randomId();
    for (const s of [1, 2, 3]) {
      expect((await upload(p, s, account, 1e9, form({ name: 'a', data: randomBytes(500) }))).status).toBe(
        200,
      );
    }
    const event = makeEvent(projectDeletedV1, 'test', {
      projectId: p,
      projectName: 'gone',
      ownerId: account,
      deletedBy: account,
      deletedAt: new Date().toISOString(),
    });
    await publish(event, projectDeletedV1.topic, p);
    await waitFor(async () => ((await listObjects(`${p}/`)).length === 0 ? true : undefined), 20_000, 'gone');
    expect(await rowsOf(p)).toEqual([]);
    expect(await usage(account)).toEqual({ used_bytes: 0, reserved_bytes: 0 });
  });
});

describe('sweeper', () => {
  it('releases expired reservations, aborts old multipart uploads and removes old objects without a row', async () => {
    const p = randomId();
    const account = randomId();
    // A committed attachment (kept), an orphaned object (removed), an abandoned multipart upload (aborted).
    const kept = await upload(p, 1, account, 1e9, form({ name: 'kept', data: randomBytes(100) }));
    expect(kept.status).toBe(200);
    const orphan = `${p}/1/${'a'.repeat(32)}`;
    await s3.putObject(env.S3_BUCKET, orphan, Buffer.from('orphan'));
    const partial = `${p}/1/${'b'.repeat(32)}`;
    const uploadId = await s3.initiateNewMultipartUpload(env.S3_BUCKET, partial, {});
    await s3.uploadPart(
      { bucketName: env.S3_BUCKET, objectName: partial, uploadID: uploadId, partNumber: 1, headers: {} },
      randomBytes(5 * 1024 * 1024),
    );
    // A reservation whose upload died: it is not renewed any more and has expired.
    await db.query(
      `WITH r AS (INSERT INTO upload_reservations (account_id, bytes, expires_at)
                  VALUES ($1, 777, now() - interval '1 second') RETURNING bytes)
       UPDATE account_storage SET reserved_bytes = reserved_bytes + (SELECT bytes FROM r) WHERE account_id = $1`,
      [account],
    );
    expect(await usage(account)).toEqual({ used_bytes: 100, reserved_bytes: 777 });

    // The real store, seen through this test's project only: other tests' uploads in flight are not ours.
    const store = createMinioBlobStore({ ...s3Options, bucket: env.S3_BUCKET });
    const mine = `${p}/`;
    const scoped: BlobStore = {
      ...store,
      async *listObjects() {
        for await (const page of store.listObjects()) yield page.filter((o) => o.key.startsWith(mine));
      },
      async *listIncompleteUploads() {
        for await (const u of store.listIncompleteUploads()) if (u.key.startsWith(mine)) yield u;
      },
    };
    const sweepAt = (offsetMs: number) =>
      makeSweepStorage({
        attachments: attachmentRepository(db, 'files'),
        blobs: scoped,
        quota: quotaRepository(db),
        logger,
        orphanAgeMs: 60 * 60_000,
        now: () => Date.now() + offsetMs,
      })();

    // Young objects may belong to uploads about to commit: left alone. The expired reservation goes at once.
    const early = await sweepAt(0);
    expect(early).toMatchObject({ abortedUploads: 0, removedObjects: 0 });
    expect(early.releasedReservations).toBeGreaterThanOrEqual(1);
    expect(await usage(account)).toEqual({ used_bytes: 100, reserved_bytes: 0 });
    expect(await listObjects(mine)).toHaveLength(2);

    // An hour later they are orphans.
    expect(await sweepAt(2 * 60 * 60_000)).toMatchObject({ abortedUploads: 1, removedObjects: 1 });
    const [keptItem] = kept.json.items as Array<{ token: string }>;
    expect(await listObjects(mine)).toEqual([`${p}/1/${keptItem!.token}`]);
    const incomplete = await s3.listIncompleteUploadsQuery(env.S3_BUCKET, mine, '', '', '');
    expect(incomplete.uploads).toEqual([]);
    expect(await usage(account)).toEqual({ used_bytes: 100, reserved_bytes: 0 });
  });
});
