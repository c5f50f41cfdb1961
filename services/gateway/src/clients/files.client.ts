import { loadFilesProto, type files } from '@flowboard/proto';
import { deriveClient, type DerivedClient, type MetricsRegistry } from '@flowboard/service-kit';

export const FILES_SERVICE = 'flowboard.files.v1.FilesService';

/** files' metadata RPCs as functions, derived from the proto (the bytes go over its HTTP port, see files-proxy.ts). */
export function createFilesClient(
  address: string,
  deadlineMs: number,
  metrics?: MetricsRegistry,
): DerivedClient<files.FilesServiceClient> {
  const { FilesService } = loadFilesProto().flowboard.files.v1;
  return deriveClient(FilesService, address, { deadlineMs, metrics });
}

export type FilesClient = ReturnType<typeof createFilesClient>;
