import { DomainError, parseExpectedVersion } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/attachment';
import type { AttachmentRepository, BlobStore, WarnLogger } from './ports';
import { attachmentChanged, type OutboxSignal } from './resource-events';

export interface DeleteAttachmentCommand {
  projectId: number;
  storyId: number;
  attachmentId: number;
  /** 0 or undefined = unconditional; else the attachment goes only if at this version. */
  expectedVersion?: number;
  /** The caller (from call metadata): the actor of `attachment.deleted`. */
  actorId: number;
}

export type DeleteAttachment = (command: DeleteAttachmentCommand) => Promise<void>;

/**
 * Removes the row first, then the object. In that order no client can ever see an attachment whose bytes are
 * gone (a download would be a 500), and the worst a failure can leave is an invisible object: when the object
 * removal fails after the row is gone, the key is logged ("orphaned attachment object") for a sweeper and the
 * request still succeeds — the attachment is deleted as far as the API is concerned, and the storage space is
 * freed once the sweeper (or an operator) removes the key. `attachment.deleted` (the attachment as it was) is
 * written in the row's transaction.
 */
export function makeDeleteAttachment(deps: {
  attachments: AttachmentRepository;
  blobs: BlobStore;
  logger: WarnLogger;
  signal?: OutboxSignal;
}): DeleteAttachment {
  return async ({ projectId, storyId, attachmentId, expectedVersion: rawVersion, actorId }) => {
    const p = requirePositiveId('project_id', projectId);
    const s = requirePositiveId('story_id', storyId);
    const expectedVersion = parseExpectedVersion(rawVersion);
    // A conditional delete at another version is refused by the repository (PreconditionFailed): the row and
    // the object stay.
    const deleted =
      Number.isSafeInteger(attachmentId) && attachmentId > 0
        ? await deps.attachments.delete(p, s, attachmentId, expectedVersion, (row) => [
            attachmentChanged('attachment.deleted', row, actorId),
          ])
        : undefined;
    if (!deleted) throw new DomainError('NotFound', 'Attachment not found');
    deps.signal?.();
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
