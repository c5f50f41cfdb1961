import { DomainError } from '@flowboard/service-kit';
import { newAttachmentToken, normalizeContentType, objectKey, requirePositiveId } from '../domain/attachment';
import { acceptFileName } from '../domain/file-name';
import type {
  AttachmentRecord,
  AttachmentRepository,
  BlobStore,
  IncomingFile,
  NewAttachment,
  QuotaStore,
  WarnLogger,
} from './ports';
import { Reservation, type ReservationOptions, type UploadAccount } from './reservation';
import { attachmentChanged, type OutboxSignal } from './resource-events';

export interface UploadAttachmentsCommand {
  projectId: number;
  storyId: number;
  /** The caller: the attachments' creator, and the actor of their `attachment.created` events. */
  userId: number;
  /** Whose quota the bytes count against, and its limit. */
  account: UploadAccount;
  /**
   * An upper bound on the files' total size when the request has a Content-Length (the body minus the least
   * multipart framing), reserved whole before the first byte is stored when it fits; undefined for a chunked body.
   */
  maxTotalBytes: number | undefined;
  /** The request's file parts, in order; each part's content must be consumed before the next one arrives. */
  files: AsyncIterable<IncomingFile>;
}

export type UploadAttachments = (command: UploadAttachmentsCommand) => Promise<AttachmentRecord[]>;

export interface UploadAttachmentsDeps {
  blobs: BlobStore;
  attachments: AttachmentRepository;
  quota: QuotaStore;
  reservations: ReservationOptions;
  logger: WarnLogger;
  newToken?: () => string;
  /** Wakes the outbox relay once the rows (and their events) are committed. */
  signal?: OutboxSignal;
}

/**
 * Stores every file of one upload request, all or nothing: each part streams straight into the blob store
 * (bytes counted on the way), and the rows are inserted together at the end. If anything fails — a part over
 * the size limit, a malformed body, the store or the database — every object this request wrote is removed
 * and no row exists. The gateway has already authorised the caller and checked that the story exists.
 *
 * Quota: space is reserved when the first file part arrives (after the body proved to be multipart, before any
 * byte is stored) and grown ahead of the file bytes if needed, waiting while other uploads of the account hold
 * the room (reservation.ts); the first byte that does not fit beside what is stored → PlanLimitExceeded (402).
 * The commit turns the reservation into usage in the rows' transaction, with an `attachment.created` event per
 * file; any failure gives it back. A part's file name with a NUL character or over 200 characters → 400.
 */
export function makeUploadAttachments(deps: UploadAttachmentsDeps): UploadAttachments {
  const newToken = deps.newToken ?? newAttachmentToken;
  return async ({ projectId: rawProjectId, storyId: rawStoryId, userId, account, maxTotalBytes, files }) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    const storyId = requirePositiveId('story_id', rawStoryId);
    const written: string[] = []; // every key we started writing, including a failed one (removal is idempotent)
    let reservation: Reservation | undefined;
    try {
      const stored: NewAttachment[] = [];
      const total = { bytes: 0 };
      for await (const file of files) {
        // Before any byte of it is stored (or, for the first part, any room reserved): a bad name is a 400.
        const fileName = acceptFileName(
          file.fileName,
          file.partName === undefined ? 'A file name' : `The file name of part '${file.partName}'`,
        );
        reservation ??= await Reservation.open(
          deps.quota,
          account,
          maxTotalBytes,
          deps.reservations,
          deps.logger,
        );
        const token = newToken();
        const key = objectKey(projectId, storyId, token);
        const contentType = normalizeContentType(file.contentType);
        const counter = { bytes: 0 };
        written.push(key);
        await deps.blobs.putStream(key, metered(file.content, counter, total, reservation), contentType);
        stored.push({
          projectId,
          storyId,
          fileName,
          contentType,
          sizeBytes: counter.bytes,
          token,
          objectKey: key,
          createdBy: userId,
          accountId: account.accountId,
        });
      }
      if (stored.length === 0 || !reservation) {
        throw new DomainError(
          'InvalidArgument',
          'No file in the request: send one or more files as multipart/form-data.',
          {
            problem: 'invalid-body',
          },
        );
      }
      reservation.close();
      const committed = await deps.attachments.commitUpload(reservation.id, stored, (records) =>
        records.map((record) => attachmentChanged('attachment.created', record, userId)),
      );
      deps.signal?.();
      return committed;
    } catch (err) {
      await Promise.all([removeAll(deps, written), reservation?.release()]);
      throw err;
    }
  };
}

/** Counts each file's and the request's bytes, and has them reserved before they go on to the store. */
async function* metered(
  content: AsyncIterable<Uint8Array>,
  file: { bytes: number },
  request: { bytes: number },
  reservation: Reservation,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of content) {
    await reservation.cover(request.bytes + chunk.byteLength);
    file.bytes += chunk.byteLength;
    request.bytes += chunk.byteLength;
    yield chunk;
  }
}

/** Best effort: a key that cannot be removed now is logged (ids only) for an operator or a sweeper. */
async function removeAll(deps: UploadAttachmentsDeps, keys: readonly string[]): Promise<void> {
  const results = await Promise.allSettled(keys.map((key) => deps.blobs.remove(key)));
  results.forEach((result, i) => {
    if (result.status === 'rejected') {
      deps.logger.warn(
        { err: result.reason, objectKey: keys[i] },
        'could not remove the object of a failed upload',
      );
    }
  });
}
