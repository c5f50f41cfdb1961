import type { Readable } from 'node:stream';
import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/attachment';
import type { AttachmentRecord, AttachmentRepository, BlobStore } from './ports';

export interface AttachmentContent {
  attachment: AttachmentRecord;
  stream: Readable;
  size: number;
}

export type OpenAttachmentContent = (
  projectId: number,
  storyId: number,
  attachmentId: number,
) => Promise<AttachmentContent>;

/**
 * The bytes of one attachment of one story, as a stream. A row without its object is a storage fault, not a
 * missing attachment: BlobNotFoundError propagates and becomes a logged internal error.
 */
export function makeOpenAttachmentContent(deps: {
  attachments: AttachmentRepository;
  blobs: BlobStore;
}): OpenAttachmentContent {
  return async (projectId, storyId, attachmentId) => {
    const attachment = await deps.attachments.find(
      requirePositiveId('project_id', projectId),
      requirePositiveId('story_id', storyId),
      requirePositiveId('attachment_id', attachmentId),
    );
    if (!attachment) throw new DomainError('NotFound', 'Attachment not found');
    const { stream, size } = await deps.blobs.getStream(attachment.objectKey);
    return { attachment, stream, size };
  };
}
