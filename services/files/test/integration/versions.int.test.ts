import * as grpc from '@grpc/grpc-js';
import { createPool, migrate } from '@flowboard/pg-kit';
import type { files } from '@flowboard/proto';
import { createLogger, fromGrpcError } from '@flowboard/service-kit';
import type { FilesApp } from '../../src/app';
import { createMinioClient } from '../../src/blob/minio-blob-store';
import { MIGRATIONS_DIR } from '../../src/db/migrations-dir';
import { env, randomId, startFiles, testConfig, callAs } from './harness';

// Attachment versions (migration 0003) and conditional renames and deletes (expected_version), against real
// PostgreSQL and MinIO.

const USER = 42;
const ACCOUNT = randomId();

let app: FilesApp;
let base: string;
let client: files.FilesServiceClient;
const db = createPool({
  connectionString: env.FILES_DATABASE_URL,
  schema: 'files',
  applicationName: 'files-versions-test',
  max: 2,
});
const s3 = createMinioClient({
  endpoint: env.S3_ENDPOINT,
  region: env.S3_REGION,
  accessKey: env.S3_ACCESS_KEY,
  secretKey: env.S3_SECRET_KEY,
});

beforeAll(async () => {
  await migrate(db, { schema: 'files', dir: MIGRATIONS_DIR });
  ({ app, base, client } = await startFiles(
    testConfig(`files-versions-int-${ACCOUNT}`),
    createLogger('files-versions-test', 'silent'),
  ));
});

afterAll(async () => {
  client?.close();
  await app?.stop();
  await db.end();
});

/** One file uploaded through the internal HTTP port, as the gateway proxies it; answers the upload's item. */
async function uploadOne(p: number, s: number, name = 'plan.txt') {
  const form = new FormData();
  form.append('file', new Blob([new TextEncoder().encode('0123456789')], { type: 'text/plain' }), name);
  const res = await fetch(`${base}/internal/projects/${p}/stories/${s}/attachments`, {
    method: 'POST',
    headers: {
      'x-flowboard-user-id': String(USER),
      'x-flowboard-account-id': String(ACCOUNT),
      'x-flowboard-storage-limit': String(2 ** 40),
    },
    body: form,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Array<{ id: number; token: string; version: number }> }).items[0]!;
}

const call = <Res>(
  method: 'ListAttachments' | 'GetAttachment' | 'RenameAttachment' | 'DeleteAttachment' | 'GetStorageUsage',
  request: object,
): Promise<Res> => callAs<Res>(client, USER, method, request);

const getAttachment = (request: object) =>
  call<files.GetAttachmentResponse__Output>('GetAttachment', request).then((r) => r.attachment!);
const rename = (request: object) =>
  call<files.RenameAttachmentResponse__Output>('RenameAttachment', request).then((r) => r.attachment!);
const usedBytes = () =>
  call<files.GetStorageUsageResponse__Output>('GetStorageUsage', { account_id: ACCOUNT }).then(
    (r) => r.used_bytes,
  );

async function grpcError(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (e) {
    return e as grpc.ServiceError;
  }
  throw new Error('expected the call to fail');
}

/** The error a call failed with, as the gateway's client sees it (a DomainError of some kind). */
const failure = async (promise: Promise<unknown>) => fromGrpcError(await grpcError(promise));

/** A call that must fail with PreconditionFailed; answers its message. */
async function preconditionFailed(promise: Promise<unknown>): Promise<string> {
  const error = await failure(promise);
  expect(error.kind).toBe('PreconditionFailed');
  return error.message;
}

function objectKeys(prefix: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const keys: string[] = [];
    s3.listObjectsV2(env.S3_BUCKET, prefix, true)
      .on('data', (item) => item.name && keys.push(item.name))
      .on('error', reject)
      .on('end', () => resolve(keys.sort()));
  });
}

describe('attachment versions', () => {
  it('start at 1 and rise by exactly 1 per rename; renaming to the same name leaves them', async () => {
    const p = randomId();
    const uploaded = await uploadOne(p, 2);
    expect(uploaded.version).toBe(1);
    const key = { project_id: p, story_id: 2, attachment_id: uploaded.id };
    expect((await getAttachment(key)).version).toBe(1);

    expect((await rename({ ...key, file_name: 'renamed.txt' })).version).toBe(2);
    expect((await rename({ ...key, file_name: 'renamed.txt' })).version).toBe(2);
    // The same name once sanitised (path segments dropped) is no change either.
    expect((await rename({ ...key, file_name: 'dir/renamed.txt' })).version).toBe(2);
    expect((await rename({ ...key, file_name: 'final.txt' })).version).toBe(3);
    const listed = await call<files.ListAttachmentsResponse__Output>('ListAttachments', {
      project_id: p,
      story_id: 2,
    });
    expect(listed.attachments.map((a) => [a.file_name, a.version])).toEqual([['final.txt', 3]]);
  });

  it('a conditional rename needs the current version; a stale one changes nothing; NotFound first', async () => {
    const p = randomId();
    const uploaded = await uploadOne(p, 2);
    const key = { project_id: p, story_id: 2, attachment_id: uploaded.id };
    const renamed = await rename({ ...key, file_name: 'v2.txt', expected_version: 1 });
    expect(renamed.version).toBe(2);

    const err = await grpcError(rename({ ...key, file_name: 'x.txt', expected_version: 1 }));
    expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(err.metadata.get('flowboard-error-reason')).toEqual(['VERSION_MISMATCH']);
    expect(fromGrpcError(err).message).toBe(`Attachment ${uploaded.id} is at version 2, not 1.`);
    await preconditionFailed(rename({ ...key, file_name: 'x.txt', expected_version: 3 }));
    expect(await getAttachment(key)).toEqual(renamed);

    // A missing attachment, or one of another story, is NotFound whatever the version.
    const elsewhere = { ...key, story_id: 3, file_name: 'x.txt', expected_version: 2 };
    expect((await failure(rename(elsewhere))).kind).toBe('NotFound');
    expect(
      (await failure(rename({ ...elsewhere, story_id: 2, attachment_id: uploaded.id + 1_000_000 }))).kind,
    ).toBe('NotFound');
    // Unconditional renames are as before.
    expect((await rename({ ...key, file_name: 'free.txt' })).version).toBe(3);
  });

  it('a conditional delete needs the current version; a stale one keeps the row, the object and the usage', async () => {
    const p = randomId();
    const uploaded = await uploadOne(p, 4);
    const key = { project_id: p, story_id: 4, attachment_id: uploaded.id };
    await rename({ ...key, file_name: 'v2.txt' });
    const used = await usedBytes();

    expect(await preconditionFailed(call('DeleteAttachment', { ...key, expected_version: 1 }))).toBe(
      `Attachment ${uploaded.id} is at version 2, not 1.`,
    );
    expect((await getAttachment(key)).version).toBe(2);
    expect(await objectKeys(`${p}/`)).toEqual([`${p}/4/${uploaded.token}`]);
    expect(await usedBytes()).toBe(used);

    await call('DeleteAttachment', { ...key, expected_version: 2 });
    expect((await failure(getAttachment(key))).kind).toBe('NotFound');
    expect(await objectKeys(`${p}/`)).toEqual([]);
    expect(await usedBytes()).toBe(used - 10);
    expect((await failure(call('DeleteAttachment', { ...key, expected_version: 2 }))).kind).toBe('NotFound');

    const other = await uploadOne(p, 4);
    await call('DeleteAttachment', { ...key, attachment_id: other.id });
    expect(await objectKeys(`${p}/`)).toEqual([]);
  });

  it('of 10 concurrent renames at one version exactly one wins; the version rises by one', async () => {
    const p = randomId();
    const uploaded = await uploadOne(p, 2);
    const key = { project_id: p, story_id: 2, attachment_id: uploaded.id };
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        rename({ ...key, file_name: `writer-${i}.txt`, expected_version: 1 }),
      ),
    );
    const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const lost = results.flatMap((r) => (r.status === 'rejected' ? [fromGrpcError(r.reason).kind] : []));
    expect(won).toHaveLength(1);
    expect(lost).toEqual(Array(9).fill('PreconditionFailed'));
    const final = await getAttachment(key);
    expect([final.version, final.file_name]).toEqual([2, won[0]!.file_name]);
  });
});
