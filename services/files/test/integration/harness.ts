import * as grpc from '@grpc/grpc-js';
import { loadFilesProto, type files } from '@flowboard/proto';
import { requireEnv } from '@flowboard/testing';
import { createApp, type FilesApp } from '../../src/app';
import { loadFilesConfig, type FilesConfig } from '../../src/config';
import type { Logger } from '@flowboard/service-kit';

/** The real stack's PostgreSQL, MinIO and Kafka, from the environment `npm test` sets. */
export const env = requireEnv(
  'FILES_DATABASE_URL',
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_BUCKET',
  'KAFKA_BROKERS',
);

/** Ids of projects, stories and accounts no real run creates, so tests never meet each other's data. */
export const randomId = () => 1_000_000_000 + Math.floor(Math.random() * 8_000_000_000_000);

/**
 * The service's config for an in-process instance: the real stack, every port 0, no sweeper, and its own consumer
 * group (`groupId`: never the running service's, which would lose its partitions to the test).
 */
export function testConfig(groupId: string, overrides: Record<string, string> = {}): FilesConfig {
  return loadFilesConfig({
    DATABASE_URL: env.FILES_DATABASE_URL,
    S3_ENDPOINT: env.S3_ENDPOINT,
    S3_REGION: env.S3_REGION,
    S3_ACCESS_KEY: env.S3_ACCESS_KEY,
    S3_SECRET_KEY: env.S3_SECRET_KEY,
    S3_BUCKET: env.S3_BUCKET,
    GRPC_PORT: '0',
    HTTP_PORT: '0',
    METRICS_PORT: '0',
    KAFKA_BROKERS: env.KAFKA_BROKERS,
    KAFKA_GROUP_ID: groupId,
    SWEEP_INTERVAL_SECONDS: '0',
    LOG_LEVEL: 'silent',
    ...overrides,
  });
}

export interface StartedFiles {
  app: FilesApp;
  /** The internal HTTP server (upload and download streams). */
  base: string;
  client: files.FilesServiceClient;
  stop(): Promise<void>;
}

/** Boots the service in-process with `config` and makes a gRPC client for it. */
export async function startFiles(config: FilesConfig, logger: Logger): Promise<StartedFiles> {
  const app = createApp(config, logger);
  const { grpcPort, httpPort } = await app.start();
  const client = new (loadFilesProto().flowboard.files.v1.FilesService)(
    `127.0.0.1:${grpcPort}`,
    grpc.credentials.createInsecure(),
  );
  return {
    app,
    base: `http://127.0.0.1:${httpPort}`,
    client,
    async stop() {
      client.close();
      await app.stop();
    },
  };
}

/** A unary call of the files service as user `userId` (trusted metadata, as the gateway sends it). */
export function callAs<Res>(
  client: files.FilesServiceClient,
  userId: number,
  method: 'ListAttachments' | 'GetAttachment' | 'RenameAttachment' | 'DeleteAttachment' | 'GetStorageUsage',
  request: object,
): Promise<Res> {
  const metadata = new grpc.Metadata();
  metadata.set('x-flowboard-user-id', String(userId));
  type Unary = (
    request: object,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: (err: grpc.ServiceError | null, res: Res) => void,
  ) => grpc.ClientUnaryCall;
  const fn = (client[method] as unknown as Unary).bind(client);
  return new Promise((resolve, reject) =>
    fn(request, metadata, { deadline: Date.now() + 10_000 }, (err, res) =>
      err ? reject(err) : resolve(res),
    ),
  );
}
