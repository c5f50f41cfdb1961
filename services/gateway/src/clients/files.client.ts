import { loadFilesProto, type files } from '@flowboard/proto';
import { createGrpcClient, unaryCall } from '@flowboard/service-kit';

export const FILES_SERVICE = 'flowboard.files.v1.FilesService';

/** Typed calls to files' metadata RPCs (the bytes go over its HTTP port, see files-proxy.ts). */
export function createFilesClient(address: string, deadlineMs: number) {
  const { FilesService } = loadFilesProto().flowboard.files.v1;
  const client = createGrpcClient(FilesService, address, {
    serviceName: FILES_SERVICE,
    idempotentMethods: ['ListAttachments', 'GetAttachment'],
  });
  const options = { deadlineMs };
  return {
    listAttachments: (projectId: number, storyId: number): Promise<files.ListAttachmentsResponse__Output> =>
      unaryCall(client, 'ListAttachments', { project_id: projectId, story_id: storyId }, options),
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
    close: () => client.close(),
  };
}

export type FilesClient = ReturnType<typeof createFilesClient>;
