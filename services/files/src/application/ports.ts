import type { Readable } from 'node:stream';
import type { OutboxMessage } from '@flowboard/events';

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
  /** The account whose quota the bytes count against; null for rows stored before quotas existed. */
  accountId: number | null;
  createdAt: Date;
  /** Kept by the database (migration 0003): 1 when created, +1 with each rename. */
  version: number;
}

export type NewAttachment = Omit<AttachmentRecord, 'id' | 'createdAt' | 'version'>;

/**
 * The events a write publishes, from the rows it changed: written to the outbox in the write's own
 * transaction, so they go out if and only if it commits.
 */
export type ChangeEvents<T> = (changed: T) => readonly OutboxMessage[];

export interface AttachmentRepository {
  /**
   * In one transaction: inserts all rows, turns the upload's reservation into usage (its actual bytes), ends
   * the reservation and writes `events` of the rows. Rejects with NotFound when the project or story was
   * deleted meanwhile, and with Unavailable when the reservation no longer exists (it expired); nothing is
   * recorded then.
   */
  commitUpload(
    reservationId: number,
    attachments: readonly NewAttachment[],
    events: ChangeEvents<AttachmentRecord[]>,
  ): Promise<AttachmentRecord[]>;
  /** A story's attachments by id. */
  listByStory(projectId: number, storyId: number): Promise<AttachmentRecord[]>;
  /** Undefined when absent or when it belongs to another project or story. */
  find(projectId: number, storyId: number, attachmentId: number): Promise<AttachmentRecord | undefined>;
  /**
   * Sets the (already sanitised) name and writes `events` of the change (the attachment before and after), in
   * one transaction; undefined when absent or in another project or story. With `expectedVersion`, only if the
   * attachment is at that version, else PreconditionFailed (nothing written).
   */
  rename(
    projectId: number,
    storyId: number,
    attachmentId: number,
    fileName: string,
    expectedVersion: number | undefined,
    events: ChangeEvents<{ before: AttachmentRecord; after: AttachmentRecord }>,
  ): Promise<AttachmentRecord | undefined>;
  /**
   * Deletes the row, frees its bytes and writes `events` of it (as it was), in one transaction, and returns it
   * (for its object key); undefined when absent or elsewhere. With `expectedVersion`, only if the attachment is
   * at that version, else PreconditionFailed (nothing written).
   */
  delete(
    projectId: number,
    storyId: number,
    attachmentId: number,
    expectedVersion: number | undefined,
    events: ChangeEvents<AttachmentRecord>,
  ): Promise<AttachmentRecord | undefined>;
  /**
   * Records the project (or, with a story id, the story) as deleted, so no upload in flight commits into it
   * later, then deletes its rows and frees their bytes, in one transaction. Answers the deleted rows' object
   * keys. Idempotent.
   */
  deleteScope(projectId: number, storyId?: number): Promise<string[]>;
  /** Which of these object keys have a committed row. */
  existingKeys(keys: readonly string[]): Promise<Set<string>>;
}

/** An account's storage, in bytes: committed attachments and uploads in flight. */
export interface StorageUsage {
  usedBytes: number;
  reservedBytes: number;
}

/**
 * What asking for more room answered (domain/quota-growth.ts decides): `ok` once the reservation holds what is
 * needed; `wait` when other uploads in flight hold the room or are first in line (ask again shortly);
 * `over-limit` when the upload's own bytes do not fit beside what is stored; `gone` when the reservation expired.
 * `held` is what the reservation holds now: less than before when it gave its room back to older uploads.
 */
export type GrowResult =
  | { outcome: 'ok'; held: number }
  | { outcome: 'wait'; held: number }
  | { outcome: 'over-limit' }
  | { outcome: 'gone' };

/**
 * The quota ledger. Every change goes through the account's row under its lock, so concurrent uploads can never
 * take the account past its limit together.
 */
export interface QuotaStore {
  /**
   * Reserves `bytes` for an upload when used + reserved + bytes <= limit (and, for more than 0 bytes, no upload of
   * the account waits for room): the reservation id, else undefined.
   */
  reserve(
    accountId: number,
    limitBytes: number,
    bytes: number,
    ttlSeconds: number,
  ): Promise<number | undefined>;
  /**
   * Has a reservation hold `needed` bytes in all, or up to `wanted` when they fit (fewer round trips later), as
   * domain/quota-growth.ts decides; renews it. `held` is what the upload last heard it holds.
   */
  grow(
    reservationId: number,
    limitBytes: number,
    want: { needed: number; wanted: number; held: number },
    ttlSeconds: number,
  ): Promise<GrowResult>;
  /** Pushes the expiry forward (an upload still streaming); false when the reservation is gone. */
  renew(reservationId: number, ttlSeconds: number): Promise<boolean>;
  /** Gives a reservation's bytes back (a failed upload). Idempotent. */
  release(reservationId: number): Promise<void>;
  /** Gives back every expired reservation's bytes (uploads whose process died); answers how many. */
  releaseExpired(): Promise<number>;
  usage(accountId: number): Promise<StorageUsage>;
  /** Used and reserved bytes summed over every account (the storage metrics). */
  totals(): Promise<StorageUsage>;
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
  /** Every stored object, page by page (the sweeper). */
  listObjects(): AsyncIterable<StoredObject[]>;
  /** Multipart uploads never completed nor aborted (a process died mid-upload). */
  listIncompleteUploads(): AsyncIterable<IncompleteUpload>;
  /** Aborts an incomplete multipart upload, freeing its parts. */
  abortIncompleteUpload(upload: IncompleteUpload): Promise<void>;
}

export interface StoredObject {
  key: string;
  lastModified: Date;
}

export interface IncompleteUpload {
  key: string;
  uploadId: string;
  initiated: Date;
}

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super('object not found');
    this.name = 'BlobNotFoundError';
  }
}

/** A file part as the upload use case sees it: the raw name and type from the request, and its bytes. */
export interface IncomingFile {
  /** The part's name (its form field), when it has one: named in errors about the part. */
  partName?: string | undefined;
  fileName: string | undefined;
  contentType: string | undefined;
  content: AsyncIterable<Uint8Array>;
}

/** The slice of the logger the use cases need. */
export interface WarnLogger {
  warn(details: object, message: string): void;
}
