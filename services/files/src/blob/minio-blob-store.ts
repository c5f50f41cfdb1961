import * as Minio from 'minio';
import { BlobNotFoundError, type BlobStore, type StoredObject } from '../application/ports';

export interface MinioBlobStoreOptions {
  /** e.g. http://127.0.0.1:29000 */
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
/** Objects per page handed to the sweeper (one database lookup each). */
const LIST_PAGE = 500;
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
      // One part-sized buffer per upload, filled from the source and reused for every part: memory stays flat at
      // one part, with no per-part allocation or concatenation copy for the garbage collector to catch up with.
      let buffer: Buffer | undefined;
      let filled = 0;
      let uploadId: string | undefined;
      const parts: Array<{ part: number; etag: string }> = [];

      const sendPart = async (body: Buffer) => {
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
          let offset = 0;
          while (offset < chunk.byteLength) {
            buffer ??= Buffer.allocUnsafe(partSize);
            const n = Math.min(partSize - filled, chunk.byteLength - offset);
            buffer.set(chunk.subarray(offset, offset + n), filled);
            filled += n;
            offset += n;
            if (filled === partSize) {
              await sendPart(buffer);
              filled = 0;
            }
          }
        }
        const rest = buffer ? buffer.subarray(0, filled) : Buffer.alloc(0);
        if (uploadId === undefined) {
          // Small object (or empty): one request, no multipart bookkeeping.
          await client.putObject(bucket, key, rest, filled, headers);
          return;
        }
        if (filled > 0) await sendPart(rest);
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

    async *listObjects() {
      let page: StoredObject[] = [];
      for await (const item of client.listObjectsV2(bucket, '', true) as AsyncIterable<Minio.BucketItem>) {
        if (item.name === undefined) continue; // a common prefix; none with a recursive listing
        page.push({ key: item.name, lastModified: item.lastModified });
        if (page.length >= LIST_PAGE) {
          yield page;
          page = [];
        }
      }
      if (page.length) yield page;
    },

    // The paged query rather than client.listIncompleteUploads: that one drops the start time and lists every
    // upload's parts.
    async *listIncompleteUploads() {
      let keyMarker = '';
      let uploadIdMarker = '';
      for (;;) {
        const result = await client.listIncompleteUploadsQuery(bucket, '', keyMarker, uploadIdMarker, '');
        for (const upload of result.uploads) {
          yield { key: upload.key, uploadId: upload.uploadId, initiated: upload.initiated };
        }
        if (!result.isTruncated) return;
        keyMarker = result.nextKeyMarker;
        uploadIdMarker = result.nextUploadIdMarker;
      }
    },

    async abortIncompleteUpload(upload) {
      await client.abortMultipartUpload(bucket, upload.key, upload.uploadId);
    },
  };
}
