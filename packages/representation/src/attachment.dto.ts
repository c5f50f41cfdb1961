import type { files } from '@flowboard/proto';
import type { Dto } from './dto';

/** An attachment as the files service reports it (its internal HTTP answers use the API's field names). */
export interface AttachmentRecord {
  id: number;
  fileName: string;
  sizeInBytes: number;
  contentType: string;
  token: string;
}

export const attachmentDto = (a: AttachmentRecord): Dto => ({
  id: a.id,
  fileName: a.fileName,
  sizeInBytes: a.sizeInBytes,
  contentType: a.contentType,
  token: a.token,
});

/** The same attachment from files' gRPC metadata. */
export const attachmentMessageDto = (a: files.Attachment__Output): Dto =>
  attachmentDto({
    id: a.id,
    fileName: a.file_name,
    sizeInBytes: a.size_in_bytes,
    contentType: a.content_type,
    token: a.token,
  });
