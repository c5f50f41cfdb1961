import type { files } from '@flowboard/proto';
import type { AttachmentRecord } from './ports';

/**
 * AttachmentRecord → Attachment message: the gRPC answer, and the resource of attachment change events (so it
 * lives beside the use cases, which write them).
 */
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
