import type http from 'node:http';
import { createPool } from '@flowboard/pg-kit';
import { loadFilesProto } from '@flowboard/proto';
import { closeServer, createGrpcServer, createLogger, listen, type Logger } from '@flowboard/service-kit';
import { makeDeleteAttachment } from './application/delete-attachment';
import { makeGetAttachment } from './application/get-attachment';
import { makeListAttachments } from './application/list-attachments';
import { makeOpenAttachmentContent } from './application/open-attachment-content';
import { makeRenameAttachment } from './application/rename-attachment';
import { makeUploadAttachments } from './application/upload-attachments';
import { createMinioBlobStore } from './blob/minio-blob-store';
import type { FilesConfig } from './config';
import { attachmentRepository } from './db/attachment-repository';
import { filesHandlers } from './grpc/files.handlers';
import { createHttpServer } from './http/server';

export interface FilesApp {
  /** Ensures the bucket, then serves; resolves to the bound ports (tests pass port 0). */
  start(): Promise<{ grpcPort: number; httpPort: number }>;
  /** HTTP close → gRPC drain → pool end. */
  stop(): Promise<void>;
  readonly logger: Logger;
}

const HTTP_DRAIN_MS = 10_000;

/** Composition root: pool, blob store, repositories, use cases, the gRPC and HTTP servers. Nothing connects until `start`. */
export function createApp(
  config: FilesConfig,
  logger: Logger = createLogger('files', config.LOG_LEVEL),
): FilesApp {
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    applicationName: 'files',
  });
  pool.on('error', (err) => logger.error({ err }, 'idle PostgreSQL client failed'));
  const attachments = attachmentRepository(pool);
  const blobs = createMinioBlobStore({
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    accessKey: config.S3_ACCESS_KEY,
    secretKey: config.S3_SECRET_KEY,
    bucket: config.S3_BUCKET,
  });

  const proto = loadFilesProto();
  const grpcServer = createGrpcServer({
    host: config.HOST,
    port: config.GRPC_PORT,
    logger,
    services: [
      {
        name: 'flowboard.files.v1.FilesService',
        definition: proto.flowboard.files.v1.FilesService.service,
        implementation: filesHandlers(logger, {
          listAttachments: makeListAttachments(attachments),
          getAttachment: makeGetAttachment(attachments),
          renameAttachment: makeRenameAttachment(attachments),
          deleteAttachment: makeDeleteAttachment({ attachments, blobs, logger }),
        }),
      },
    ],
  });
  const httpServer = createHttpServer({
    logger,
    maxFileBytes: config.MAX_FILE_BYTES,
    uploadAttachments: makeUploadAttachments({ blobs, attachments, logger }),
    openAttachmentContent: makeOpenAttachmentContent({ attachments, blobs }),
  });

  let stopped: Promise<void> | undefined;
  return {
    logger,
    async start() {
      await blobs.ensureBucket();
      const grpcPort = await grpcServer.start();
      const httpPort = await listen(httpServer, config.HTTP_PORT, config.HOST);
      logger.info({ port: httpPort }, 'internal HTTP server listening');
      return { grpcPort, httpPort };
    },
    stop: () =>
      (stopped ??= (async () => {
        await closeHttp(httpServer, logger);
        await grpcServer.stop();
        await pool.end();
      })()),
  };
}

/** Stops accepting, lets in-flight transfers finish, and cuts whatever is still open after the grace period. */
async function closeHttp(server: http.Server, logger: Logger): Promise<void> {
  const timer = setTimeout(() => {
    logger.warn('HTTP drain timed out; closing open connections');
    server.closeAllConnections();
  }, HTTP_DRAIN_MS);
  try {
    await closeServer(server);
  } finally {
    clearTimeout(timer);
  }
}
