import { DomainError, parseExpectedVersion } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/attachment';
import type { AttachmentRepository, BlobStore, WarnLogger } from './ports';

/** `expectedVersion` 0 or undefined = unconditional; else the attachment goes only if at this version. */
export type DeleteAttachment = (
  projectId: number,
  storyId: number,
  attachmentId: number,
  expectedVersion?: number,
) => Promise<void>;

/**
 * Removes the row first, then the object. In that order no client can ever see an attachment whose bytes are
 * gone (a download would be a 500), and the worst a failure can leave is an invisible object: when the object
 * removal fails after the row is gone, the key is logged ("orphaned attachment object") for a sweeper and the
 * request still succeeds — the attachment is deleted as far as the API is concerned, and the storage space is
 * freed once the sweeper (or an operator) removes the key.
 */
export function makeDeleteAttachment(deps: {
  attachments: AttachmentRepository;
  blobs: BlobStore;
  logger: WarnLogger;
}): DeleteAttachment {
  return async (projectId, storyId, attachmentId, rawVersion) => {
    const p = requirePositiveId('project_id', projectId);
    const s = requirePositiveId('story_id', storyId);
    const expectedVersion = parseExpectedVersion(rawVersion);
    // A conditional delete at another version is refused by the repository (PreconditionFailed): the row and
    // the object stay.
    const deleted =
      Number.isSafeInteger(attachmentId) && attachmentId > 0
        ? await deps.attachments.delete(p, s, attachmentId, expectedVersion)
        : undefined;
    if (!deleted) throw new DomainError('NotFound', 'Attachment not found');
    try {
      await deps.blobs.remove(deleted.objectKey);
    } catch (err) {
      deps.logger.warn(
        { err, objectKey: deleted.objectKey, attachmentId: deleted.id, sweep: true },
        'orphaned attachment object: the row is deleted, the object could not be removed',
      );
    }
  };
}
