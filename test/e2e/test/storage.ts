import * as Minio from 'minio';
import { requireEnv } from '@flowboard/testing';
import { api, type SignedUp } from './support';

/** The stack's object store (MinIO), for the tests that check what was stored or removed. */
const s3env = requireEnv('S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET');
const s3url = new URL(s3env.S3_ENDPOINT);
const s3 = new Minio.Client({
  endPoint: s3url.hostname,
  port: Number(s3url.port || 80),
  useSSL: s3url.protocol === 'https:',
  accessKey: s3env.S3_ACCESS_KEY,
  secretKey: s3env.S3_SECRET_KEY,
  pathStyle: true,
});

/** The keys of the stored objects under `prefix` (`<project>/`, `<project>/<story>/`), sorted. */
export function listObjects(prefix: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const keys: string[] = [];
    s3.listObjectsV2(s3env.S3_BUCKET, prefix, true)
      .on('data', (item) => item.name && keys.push(item.name))
      .on('error', reject)
      .on('end', () => resolve(keys.sort()));
  });
}

/** The bytes the user's account uses, as `GET /me/account` shows them. */
export async function storageUsed(user: SignedUp): Promise<number> {
  const res = await api('/api/v1/me/account', { key: user.key });
  expect(res.status).toBe(200);
  return res.json.storageUsedBytes as number;
}
