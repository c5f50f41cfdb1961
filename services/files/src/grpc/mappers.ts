import type { files } from '@flowboard/proto';
import type { AttachmentRecord } from '../application/ports';

export const toAttachmentMessage = (a: AttachmentRecord): files.Attachment => ({
  id: a.id,
  project_id: a.projectId,
  story_id: a.storyId,
  file_name: a.fileName,
  size_in_bytes: a.sizeBytes,
  content_type: a.contentType,
  token: a.token,
  version: a.version,
});
