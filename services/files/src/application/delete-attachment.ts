import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/attachment';
import type { AttachmentRepository, BlobStore, WarnLogger } from './ports';

export type DeleteAttachment = (projectId: number, storyId: number, attachmentId: number) => Promise<void>;

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
  return async (projectId, storyId, attachmentId) => {
    const p = requirePositiveId('project_id', projectId);
    const s = requirePositiveId('story_id', storyId);
    const deleted =
      Number.isSafeInteger(attachmentId) && attachmentId > 0
        ? await deps.attachments.delete(p, s, attachmentId)
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
