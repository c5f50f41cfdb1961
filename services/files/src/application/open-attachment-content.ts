import type { Readable } from 'node:stream';
import { DomainError } from '@flowboard/service-kit';
import { requirePositiveId } from '../domain/attachment';
import { parseByteRange, type ByteRange } from '../domain/byte-range';
import type { AttachmentRecord, AttachmentRepository, BlobStore } from './ports';

export type AttachmentContent =
  /** The whole object (no range, or a Range header that is ignored). */
  | { kind: 'whole'; attachment: AttachmentRecord; stream: Readable; size: number }
  /** One byte range of it: `size` is the range's length, `total` the object's. */
  | {
      kind: 'partial';
      attachment: AttachmentRecord;
      stream: Readable;
      size: number;
      range: ByteRange;
      total: number;
    }
  /** The range selects nothing (416); no object was opened. */
  | { kind: 'unsatisfiable'; attachment: AttachmentRecord; total: number };

export type OpenAttachmentContent = (
  projectId: number,
  storyId: number,
  attachmentId: number,
  rangeHeader?: string,
) => Promise<AttachmentContent>;

/**
 * The bytes of one attachment of one story, as a stream; with a `Range` header, only that range (MinIO's ranged
 * GET, so nothing before the range is read). The range is checked against the recorded size, which the upload
 * counted byte by byte. A row without its object is a storage fault, not a missing attachment:
 * BlobNotFoundError propagates and becomes a logged internal error.
 */
export function makeOpenAttachmentContent(deps: {
  attachments: AttachmentRepository;
  blobs: BlobStore;
}): OpenAttachmentContent {
  return async (projectId, storyId, attachmentId, rangeHeader) => {
    const attachment = await deps.attachments.find(
      requirePositiveId('project_id', projectId),
      requirePositiveId('story_id', storyId),
      requirePositiveId('attachment_id', attachmentId),
    );
    if (!attachment) throw new DomainError('NotFound', 'Attachment not found');
    const total = attachment.sizeBytes;
    const range = parseByteRange(rangeHeader, total);
    if (range === 'unsatisfiable') return { kind: 'unsatisfiable', attachment, total };
    if (range === undefined) {
      const { stream, size } = await deps.blobs.getStream(attachment.objectKey);
      return { kind: 'whole', attachment, stream, size };
    }
    const { stream, size } = await deps.blobs.getStream(attachment.objectKey, range);
    return { kind: 'partial', attachment, stream, size, range, total };
  };
}
