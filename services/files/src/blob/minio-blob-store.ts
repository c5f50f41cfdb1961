import * as Minio from 'minio';
import { BlobNotFoundError, type BlobStore } from '../application/ports';

export interface MinioBlobStoreOptions {
  /** e.g. http://127.0.0.1:59000 */
  endpoint: string;
  region: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  /** Multipart part size; S3 wants at least 5 MiB for every part but the last. Default 8 MiB. */
  partSize?: number;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;
const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
const NOT_FOUND_CODES = new Set(['NoSuchKey', 'NotFound', 'NoSuchObject']);
const BUCKET_EXISTS_CODES = new Set(['BucketAlreadyOwnedByYou', 'BucketAlreadyExists']);

const errorCode = (err: unknown): string | undefined => (err as { code?: string } | null)?.code;

export function createMinioClient(options: Omit<MinioBlobStoreOptions, 'bucket' | 'partSize'>): Minio.Client {
  const url = new URL(options.endpoint);
  const useSSL = url.protocol === 'https:';
  return new Minio.Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: options.accessKey,
    secretKey: options.secretKey,
    region: options.region,
    pathStyle: true,
  });
}

/**
 * BlobStore over the MinIO client (any S3 API). Uploads of unknown length are sent as they arrive: one PUT when
 * the content fits in one part, else an S3 multipart upload fed part by part. At most one part is held in memory,
 * and the source is only read while the previous part is on its way (back-pressure reaches the HTTP request).
 *
 * Why not `client.putObject(stream)`: with no size it sizes parts for a 5 TiB object (~0.5 GiB buffered per part),
 * and an error on the source stream leaves its promise pending forever instead of aborting the upload.
 */
export function createMinioBlobStore(options: MinioBlobStoreOptions): BlobStore {
  const client = createMinioClient(options);
  const { bucket } = options;
  const partSize = Math.max(options.partSize ?? DEFAULT_PART_SIZE, MIN_PART_SIZE);

  return {
    async ensureBucket() {
      if (await client.bucketExists(bucket)) return;
      try {
        await client.makeBucket(bucket, options.region);
      } catch (err) {
        if (!BUCKET_EXISTS_CODES.has(errorCode(err) ?? '')) throw err; // another instance made it first
      }
    },

    async putStream(key, content, contentType) {
      const headers = { 'Content-Type': contentType };
      let pending: Uint8Array[] = [];
      let pendingBytes = 0;
      let uploadId: string | undefined;
      const parts: Array<{ part: number; etag: string }> = [];

      const sendPart = async () => {
        const body = Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        uploadId ??= await client.initiateNewMultipartUpload(bucket, key, headers);
        const part = parts.length + 1;
        const { etag } = await client.uploadPart(
          { bucketName: bucket, objectName: key, uploadID: uploadId, partNumber: part, headers: {} },
          body,
        );
        parts.push({ part, etag });
      };

      try {
        for await (const chunk of content) {
          pending.push(chunk);
          pendingBytes += chunk.byteLength;
          if (pendingBytes >= partSize) await sendPart();
        }
        if (uploadId === undefined) {
          // Small object (or empty): one request, no multipart bookkeeping.
          await client.putObject(bucket, key, Buffer.concat(pending, pendingBytes), pendingBytes, headers);
          return;
        }
        if (pendingBytes > 0) await sendPart();
        await client.completeMultipartUpload(bucket, key, uploadId, parts);
      } catch (err) {
        if (uploadId !== undefined) {
          // Frees the parts already stored; the object never becomes visible.
          await client.abortMultipartUpload(bucket, key, uploadId).catch(() => undefined);
        }
        throw err;
      }
    },

    async getStream(key, range) {
      try {
        if (range) {
          const length = range.end - range.start + 1;
          const stream = await client.getPartialObject(bucket, key, range.start, length);
          return { stream, size: length };
        }
        const { size } = await client.statObject(bucket, key);
        const stream = await client.getObject(bucket, key);
        return { stream, size };
      } catch (err) {
        if (NOT_FOUND_CODES.has(errorCode(err) ?? '')) throw new BlobNotFoundError(key);
        throw err;
      }
    },

    async remove(key) {
      try {
        await client.removeObject(bucket, key);
      } catch (err) {
        if (!NOT_FOUND_CODES.has(errorCode(err) ?? '')) throw err;
      }
    },
  };
}
