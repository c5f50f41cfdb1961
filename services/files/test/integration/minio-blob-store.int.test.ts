import { createHash, randomBytes } from 'node:crypto';
import { requireEnv, uniqueSuffix } from '@flowboard/testing';
import { BlobNotFoundError } from '../../src/application/ports';
import { createMinioBlobStore, createMinioClient } from '../../src/blob/minio-blob-store';

// The BlobStore adapter against real MinIO: streaming of unknown length, multipart, abort on failure.
const env = requireEnv('S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET');
const options = {
  endpoint: env.S3_ENDPOINT,
  region: env.S3_REGION,
  accessKey: env.S3_ACCESS_KEY,
  secretKey: env.S3_SECRET_KEY,
};
const store = createMinioBlobStore({ ...options, bucket: env.S3_BUCKET });
const s3 = createMinioClient(options);
const MiB = 1024 * 1024;
const prefix = `blob-store-test-${uniqueSuffix()}/`;

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

async function* chunks(data: Buffer, size = 64 * 1024): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function read(key: string): Promise<{ bytes: Buffer; size: number }> {
  const { stream, size } = await store.getStream(key);
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return { bytes: Buffer.concat(parts), size };
}

/** MinIO lists incomplete multipart uploads only for an exact object key. */
function incompleteUploads(key: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const keys: string[] = [];
    s3.listIncompleteUploads(env.S3_BUCKET, key, true)
      .on('data', (item) => keys.push(item.key))
      .on('error', reject)
      .on('end', () => resolve(keys));
  });
}

beforeAll(async () => {
  await Promise.all([store.ensureBucket(), store.ensureBucket()]); // concurrent starts are fine
});

it('stores small, empty and multipart objects of unknown length, byte for byte, with their type', async () => {
  for (const [name, data] of [
    ['small', Buffer.from('hello')],
    ['empty', Buffer.alloc(0)],
    ['multipart', randomBytes(17 * MiB + 3)], // three parts of the default 8 MiB
  ] as const) {
    const key = `${prefix}${name}`;
    await store.putStream(key, chunks(data), 'application/x-test');
    const { bytes, size } = await read(key);
    expect(size).toBe(data.length);
    expect(sha256(bytes)).toBe(sha256(data));
    expect((await s3.statObject(env.S3_BUCKET, key)).metaData['content-type']).toBe('application/x-test');
    await store.remove(key);
  }
});

it('aborts the multipart upload when the source fails, leaving neither object nor parts', async () => {
  // Control: an open upload is visible to the check used below.
  const controlKey = `${prefix}control`;
  const uploadId = await s3.initiateNewMultipartUpload(env.S3_BUCKET, controlKey, {});
  expect(await incompleteUploads(controlKey)).toEqual([controlKey]);
  await s3.abortMultipartUpload(env.S3_BUCKET, controlKey, uploadId);

  const key = `${prefix}failing`;
  const failure = new Error('source failed');
  async function* failingSource(): AsyncGenerator<Uint8Array> {
    yield* chunks(randomBytes(9 * MiB)); // one full part is uploaded before the failure
    throw failure;
  }
  await expect(store.putStream(key, failingSource(), 'application/octet-stream')).rejects.toBe(failure);
  expect(await incompleteUploads(key)).toEqual([]);
  await expect(store.getStream(key)).rejects.toBeInstanceOf(BlobNotFoundError);
});

it('treats removing a missing object as done and reports a missing object on read', async () => {
  await expect(store.remove(`${prefix}never-written`)).resolves.toBeUndefined();
  await expect(store.getStream(`${prefix}never-written`)).rejects.toBeInstanceOf(BlobNotFoundError);
});
