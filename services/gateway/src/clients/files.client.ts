import { loadFilesProto, type files } from '@flowboard/proto';
import { createGrpcClient, unaryCall, type MetricsRegistry } from '@flowboard/service-kit';

export const FILES_SERVICE = 'flowboard.files.v1.FilesService';

/** Typed calls to files' metadata RPCs (the bytes go over its HTTP port, see files-proxy.ts). */
export function createFilesClient(address: string, deadlineMs: number, metrics?: MetricsRegistry) {
  const { FilesService } = loadFilesProto().flowboard.files.v1;
  const client = createGrpcClient(FilesService, address, { metrics });
  const options = { deadlineMs };
  return {
    listAttachments: (
      projectId: number,
      storyId: number,
      where = '',
    ): Promise<files.ListAttachmentsResponse__Output> =>
      unaryCall(client, 'ListAttachments', { project_id: projectId, story_id: storyId, where }, options),
    getAttachment: (
      projectId: number,
      storyId: number,
      attachmentId: number,
    ): Promise<files.GetAttachmentResponse__Output> =>
      unaryCall(
        client,
        'GetAttachment',
        { project_id: projectId, story_id: storyId, attachment_id: attachmentId },
        options,
      ),
    renameAttachment: (
      projectId: number,
      storyId: number,
      attachmentId: number,
      fileName: string,
    ): Promise<files.RenameAttachmentResponse__Output> =>
      unaryCall(
        client,
        'RenameAttachment',
        { project_id: projectId, story_id: storyId, attachment_id: attachmentId, file_name: fileName },
        options,
      ),
    deleteAttachment: (
      projectId: number,
      storyId: number,
      attachmentId: number,
    ): Promise<files.DeleteAttachmentResponse__Output> =>
      unaryCall(
        client,
        'DeleteAttachment',
        { project_id: projectId, story_id: storyId, attachment_id: attachmentId },
        options,
      ),
    getStorageUsage: (accountId: number): Promise<files.GetStorageUsageResponse__Output> =>
      unaryCall(client, 'GetStorageUsage', { account_id: accountId }, options),
    close: () => client.close(),
  };
}

export type FilesClient = ReturnType<typeof createFilesClient>;
