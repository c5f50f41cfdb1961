import { DomainError, parseExpectedVersion } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/attachment';
import { sanitizeFileName } from '../domain/file-name';
import type { AttachmentRecord, AttachmentRepository } from './ports';

export type RenameAttachment = (
  projectId: number,
  storyId: number,
  attachmentId: number,
  rawFileName: string,
  /** 0 or undefined = unconditional; else the rename happens only if the attachment is at this version. */
  expectedVersion?: number,
) => Promise<AttachmentRecord>;

/**
 * PUT `filename`/`fileName` (docs/compat.md §5.6): the new name goes through the upload's rules (last path
 * segment, no control or bidi characters, NFC, at most 200 characters). A blank name is refused rather than
 * turned into the upload's default "file": here the caller chose it. NotFound as for get; a conditional
 * rename at another version is PreconditionFailed.
 */
export function makeRenameAttachment(attachments: AttachmentRepository): RenameAttachment {
  return async (projectId, storyId, attachmentId, rawFileName, rawVersion) => {
    const p = requirePositiveId('project_id', projectId);
    const s = requirePositiveId('story_id', storyId);
    const expectedVersion = parseExpectedVersion(rawVersion);
    if (!Number.isSafeInteger(attachmentId) || attachmentId <= 0) {
      throw new DomainError('NotFound', 'Attachment not found');
    }
    if (rawFileName.trim() === '') {
      throw new DomainError('InvalidArgument', "Field 'filename' must not be empty.", {
        problem: 'invalid-field',
      });
    }
    const renamed = await attachments.rename(
      p,
      s,
      attachmentId,
      sanitizeFileName(rawFileName),
      expectedVersion,
    );
    if (!renamed) throw new DomainError('NotFound', 'Attachment not found');
    return renamed;
  };
}
