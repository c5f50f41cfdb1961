import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/attachment';
import type { AttachmentRecord, AttachmentRepository } from './ports';

export type GetAttachment = (
  projectId: number,
  storyId: number,
  attachmentId: number,
) => Promise<AttachmentRecord>;

/** NotFound when absent, and equally when the attachment belongs to another project or story. */
export function makeGetAttachment(attachments: AttachmentRepository): GetAttachment {
  return async (projectId, storyId, attachmentId) => {
    const found =
      Number.isSafeInteger(attachmentId) && attachmentId > 0
        ? await attachments.find(
            requirePositiveId('project_id', projectId),
            requirePositiveId('story_id', storyId),
            attachmentId,
          )
        : undefined;
    if (!found) throw new DomainError('NotFound', 'Attachment not found');
    return found;
  };
}
