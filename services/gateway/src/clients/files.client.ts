import { loadFilesProto, type files } from '@flowboard/proto';
import type { DerivedClient, Upstream, UpstreamOptions } from '@flowboard/service-kit';

export const FILES_SERVICE = 'flowboard.files.v1.FilesService';

/** What createUpstream needs to know of files' gRPC port. */
export function filesUpstream(): Pick<UpstreamOptions, 'services' | 'healthService'> {
  return {
    services: [loadFilesProto().flowboard.files.v1.FilesService.service],
    healthService: FILES_SERVICE,
  };
}

/**
 * files' metadata RPCs as functions, derived from the proto (the bytes go over its HTTP port, see files-proxy.ts);
 * through the upstream's breaker.
 */
export function createFilesClient(
  upstream: Upstream,
  deadlineMs: number,
): DerivedClient<files.FilesServiceClient> {
  const { FilesService } = loadFilesProto().flowboard.files.v1;
  return upstream.derive(FilesService, { deadlineMs });
}

export type FilesClient = ReturnType<typeof createFilesClient>;
