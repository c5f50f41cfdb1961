import type http from 'node:http';
import { closeServer, createGrpcServer, createLogger, listen, type GrpcServer } from '@flowboard/service-kit';
import { requireEnv } from '@flowboard/testing';
import { createApp, type App } from '../../../src/app';
import { configSchema } from '../../../src/config';
import { FakeBoards } from './fake-boards';
import { FakeFiles } from './fake-files';
import { FakeMembership } from './fake-membership';
import { FakeWebhooks } from './fake-webhooks';

export interface Harness {
  baseUrl: string;
  membership: FakeMembership;
  boards: FakeBoards;
  files: FakeFiles;
  webhooks: FakeWebhooks;
  /** The main gateway's environment: where the fakes and Redis are. */
  env: Readonly<Record<string, string>>;
  /** Starts another gateway on the same fakes with some settings changed. */
  gateway(env?: Record<string, string>): Promise<{ baseUrl: string; app: App }>;
  stop(): Promise<void>;
}

const silent = createLogger('test', (process.env.LOG_LEVEL as 'silent' | undefined) ?? 'silent'); // LOG_LEVEL=debug to read the gateways' logs

/**
 * The gateway in-process on port 0, against real Redis and in-process fakes of membership, boards, files and
 * webhooks (gRPC servers with health, plus files' internal HTTP port). Ids start at a random base so cached access
 * decisions of earlier runs never match.
 */
export async function startHarness(): Promise<Harness> {
  const { REDIS_URL } = requireEnv('REDIS_URL');
  const idBase = 1_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
  const membership = new FakeMembership(idBase);
  const boards = new FakeBoards(idBase);
  const files = new FakeFiles();
  const webhooks = new FakeWebhooks();

  const servers: GrpcServer[] = [
    [membership.registration(silent)],
    boards.registrations(silent),
    [files.registration(silent)],
    [webhooks.registration(silent)],
  ].map((services) => createGrpcServer({ port: 0, logger: silent, services }));
  const [membershipPort, boardsPort, filesPort, webhooksPort] = await Promise.all(
    servers.map((s) => s.start()),
  );
  const filesHttp: http.Server = files.httpServer();
  const filesHttpPort = await listen(filesHttp, 0);

  const baseEnv = {
    PORT: '0',
    METRICS_PORT: '0',
    REDIS_URL,
    MEMBERSHIP_ADDR: `127.0.0.1:${membershipPort}`,
    BOARDS_ADDR: `127.0.0.1:${boardsPort}`,
    FILES_ADDR: `127.0.0.1:${filesPort}`,
    FILES_HTTP_URL: `http://127.0.0.1:${filesHttpPort}`,
    WEBHOOKS_ADDR: `127.0.0.1:${webhooksPort}`,
    GRPC_DEADLINE_MS: '2000',
    KEY_USE_FLUSH_SECONDS: '1',
    LOG_LEVEL: 'silent',
  };
  const apps: App[] = [];
  const gateway = async (env: Record<string, string> = {}) => {
    const app = createApp(configSchema.parse({ ...baseEnv, ...env }), { logger: silent });
    apps.push(app);
    const port = await app.start();
    return { baseUrl: `http://127.0.0.1:${port}`, app };
  };
  const main = await gateway();

  return {
    baseUrl: main.baseUrl,
    env: baseEnv,
    membership,
    boards,
    files,
    webhooks,
    gateway,
    async stop() {
      await Promise.all(apps.map((a) => a.stop()));
      await Promise.all(servers.map((s) => s.stop(100)));
      await closeServer(filesHttp);
    },
  };
}
