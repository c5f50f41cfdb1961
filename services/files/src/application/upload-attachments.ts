import { DomainError } from '@flowboard/service-kit';
import { newAttachmentToken, normalizeContentType, objectKey, requirePositiveId } from '../domain/attachment';
import { sanitizeFileName } from '../domain/file-name';
import type {
  AttachmentRecord,
  AttachmentRepository,
  BlobStore,
  IncomingFile,
  NewAttachment,
  WarnLogger,
} from './ports';

export interface UploadAttachmentsCommand {
  projectId: number;
  storyId: number;
  userId: number;
  /** The request's file parts, in order; each part's content must be consumed before the next one arrives. */
  files: AsyncIterable<IncomingFile>;
}

export type UploadAttachments = (command: UploadAttachmentsCommand) => Promise<AttachmentRecord[]>;

export interface UploadAttachmentsDeps {
  blobs: BlobStore;
  attachments: AttachmentRepository;
  logger: WarnLogger;
  newToken?: () => string;
}

/**
 * Stores every file of one upload request, all or nothing: each part streams straight into the blob store
 * (bytes counted on the way), and the rows are inserted together at the end. If anything fails — a part over
 * the size limit, a malformed body, the store or the database — every object this request wrote is removed
 * and no row exists. The gateway has already authorised the caller and checked that the story exists.
 */
export function makeUploadAttachments(deps: UploadAttachmentsDeps): UploadAttachments {
  const newToken = deps.newToken ?? newAttachmentToken;
  return async ({ projectId: rawProjectId, storyId: rawStoryId, userId, files }) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    const storyId = requirePositiveId('story_id', rawStoryId);
    const written: string[] = []; // every key we started writing, including a failed one (removal is idempotent)
    try {
      const stored: NewAttachment[] = [];
      for await (const file of files) {
        const token = newToken();
        const key = objectKey(projectId, storyId, token);
        const contentType = normalizeContentType(file.contentType);
        const counter = { bytes: 0 };
        written.push(key);
        await deps.blobs.putStream(key, countBytes(file.content, counter), contentType);
        stored.push({
          projectId,
          storyId,
          fileName: sanitizeFileName(file.fileName),
          contentType,
          sizeBytes: counter.bytes,
          token,
          objectKey: key,
          createdBy: userId,
        });
      }
      if (stored.length === 0) {
        throw new DomainError(
          'InvalidArgument',
          'No file in the request: send one or more files as multipart/form-data.',
          {
            problem: 'invalid-body',
          },
        );
      }
      return await deps.attachments.insertMany(stored);
    } catch (err) {
      await removeAll(deps, written);
      throw err;
    }
  };
}

async function* countBytes(
  content: AsyncIterable<Uint8Array>,
  counter: { bytes: number },
): AsyncGenerator<Uint8Array> {
  for await (const chunk of content) {
    counter.bytes += chunk.byteLength;
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
