import type { files } from '@flowboard/proto';
import { requireUser, unary, type Logger } from '@flowboard/service-kit';
import type { DeleteAttachment } from '../application/delete-attachment';
import type { GetAttachment } from '../application/get-attachment';
import type { GetStorageUsage } from '../application/get-storage-usage';
import type { ListAttachments } from '../application/list-attachments';
import type { RenameAttachment } from '../application/rename-attachment';
import { toAttachmentMessage } from '../application/attachment-message';

export interface FilesUseCases {
  listAttachments: ListAttachments;
  getAttachment: GetAttachment;
  renameAttachment: RenameAttachment;
  deleteAttachment: DeleteAttachment;
  getStorageUsage: GetStorageUsage;
}

/** gRPC request → use case → response (metadata only; bytes travel over the internal HTTP port). */
export function filesHandlers(logger: Logger, useCases: FilesUseCases): files.FilesServiceHandlers {
  return {
    ListAttachments: unary(
      logger,
      async (request: files.ListAttachmentsRequest__Output): Promise<files.ListAttachmentsResponse> => {
        const attachments = await useCases.listAttachments(
          request.project_id,
          request.story_id,
          request.where,
        );
        return { attachments: attachments.map(toAttachmentMessage) };
      },
    ),

    GetAttachment: unary(
      logger,
      async (request: files.GetAttachmentRequest__Output): Promise<files.GetAttachmentResponse> => {
        const attachment = await useCases.getAttachment(
          request.project_id,
          request.story_id,
          request.attachment_id,
        );
        return { attachment: toAttachmentMessage(attachment) };
      },
    ),

    RenameAttachment: unary(
      logger,
      async (
        request: files.RenameAttachmentRequest__Output,
        ctx,
      ): Promise<files.RenameAttachmentResponse> => {
        const attachment = await useCases.renameAttachment({
          projectId: request.project_id,
          storyId: request.story_id,
          attachmentId: request.attachment_id,
          fileName: request.file_name,
          expectedVersion: request.expected_version,
          actorId: requireUser(ctx),
        });
        return { attachment: toAttachmentMessage(attachment) };
      },
    ),

    DeleteAttachment: unary(
      logger,
      async (
        request: files.DeleteAttachmentRequest__Output,
        ctx,
      ): Promise<files.DeleteAttachmentResponse> => {
        await useCases.deleteAttachment({
          projectId: request.project_id,
          storyId: request.story_id,
          attachmentId: request.attachment_id,
          expectedVersion: request.expected_version,
          actorId: requireUser(ctx),
        });
        return {};
      },
    ),

    GetStorageUsage: unary(
      logger,
      async (request: files.GetStorageUsageRequest__Output): Promise<files.GetStorageUsageResponse> => {
        const usage = await useCases.getStorageUsage(request.account_id);
        return { used_bytes: usage.usedBytes, reserved_bytes: usage.reservedBytes };
      },
    ),
  };
}
