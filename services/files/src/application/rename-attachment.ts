import { DomainError, parseExpectedVersion } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/attachment';
import { acceptFileName } from '../domain/file-name';
import type { AttachmentRecord, AttachmentRepository } from './ports';
import { attachmentChanged, type OutboxSignal } from './resource-events';

export interface RenameAttachmentCommand {
  projectId: number;
  storyId: number;
  attachmentId: number;
  fileName: string;
  /** 0 or undefined = unconditional; else the rename happens only if the attachment is at this version. */
  expectedVersion?: number;
  /** The caller (from call metadata): the actor of `attachment.updated`. */
  actorId: number;
}

export type RenameAttachment = (command: RenameAttachmentCommand) => Promise<AttachmentRecord>;

/**
 * PUT `filename`/`fileName` (docs/compat.md §5.6): the new name goes through the upload's rules (last path
 * segment, no control or bidi characters, NFC; a NUL or more than 200 characters is a 400). A blank name is refused rather than
 * turned into the upload's default "file": here the caller chose it. NotFound as for get; a conditional
 * rename at another version is PreconditionFailed. Publishes `attachment.updated` when the name changed (the
 * version rose), in the rename's transaction.
 */
export function makeRenameAttachment(
  attachments: AttachmentRepository,
  signal: OutboxSignal = () => undefined,
): RenameAttachment {
  return async ({
    projectId,
    storyId,
    attachmentId,
    fileName: rawFileName,
    expectedVersion: rawVersion,
    actorId,
  }) => {
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
      acceptFileName(rawFileName, "Field 'filename'"),
      expectedVersion,
      ({ before, after }) =>
        after.version === before.version ? [] : [attachmentChanged('attachment.updated', after, actorId)],
    );
    if (!renamed) throw new DomainError('NotFound', 'Attachment not found');
    signal();
    return renamed;
  };
}
