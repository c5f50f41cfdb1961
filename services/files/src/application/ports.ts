import type { Readable } from 'node:stream';

/** Ports the use cases depend on; src/db and src/blob implement them, unit tests use fakes. */

export interface AttachmentRecord {
  id: number;
  projectId: number;
  storyId: number;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  token: string;
  objectKey: string;
  createdBy: number;
  createdAt: Date;
}

export type NewAttachment = Omit<AttachmentRecord, 'id' | 'createdAt'>;

export interface AttachmentRepository {
  /** Inserts all rows atomically (one statement) and returns them in the given order. */
  insertMany(attachments: readonly NewAttachment[]): Promise<AttachmentRecord[]>;
  /** A story's attachments by id. */
  listByStory(projectId: number, storyId: number): Promise<AttachmentRecord[]>;
  /** Undefined when absent or when it belongs to another project or story. */
  find(projectId: number, storyId: number, attachmentId: number): Promise<AttachmentRecord | undefined>;
  /** Sets the (already sanitised) name; undefined when absent or in another project or story. */
  rename(
    projectId: number,
    storyId: number,
    attachmentId: number,
    fileName: string,
  ): Promise<AttachmentRecord | undefined>;
  /** Deletes the row and returns it (for its object key); undefined when absent or elsewhere. */
  delete(projectId: number, storyId: number, attachmentId: number): Promise<AttachmentRecord | undefined>;
}

/** Object storage for the bytes. Keys are opaque to it; content is streamed, never held whole. */
export interface BlobStore {
  /** Creates the bucket when it does not exist (start-up). */
  ensureBucket(): Promise<void>;
  /**
   * Stores `content` of unknown length under `key`. Either the object exists completely afterwards, or the call
   * rejects and nothing is left behind (an interrupted multipart upload is aborted).
   */
  putStream(key: string, content: AsyncIterable<Uint8Array>, contentType: string): Promise<void>;
  /**
   * The object's bytes, or only `range` (inclusive offsets, already checked against the size) with a ranged
   * GET; `size` is the number of bytes the stream carries. Rejects with BlobNotFoundError when there is no such
   * object.
   */
  getStream(key: string, range?: { start: number; end: number }): Promise<{ stream: Readable; size: number }>;
  /** Deleting a missing key is not an error. */
  remove(key: string): Promise<void>;
}

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super('object not found');
    this.name = 'BlobNotFoundError';
  }
}

/** A file part as the upload use case sees it: the raw name and type from the request, and its bytes. */
export interface IncomingFile {
  fileName: string | undefined;
  contentType: string | undefined;
  content: AsyncIterable<Uint8Array>;
}

/** The slice of the logger the use cases need. */
export interface WarnLogger {
  warn(details: object, message: string): void;
}
