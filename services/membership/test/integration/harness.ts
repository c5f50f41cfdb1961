import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { createPool, migrate, type Pool } from '@flowboard/pg-kit';
import { loadMembershipProto, type membership } from '@flowboard/proto';
import { contextToMetadata, createLogger, loadConfig } from '@flowboard/service-kit';
import { requireEnv, uniqueSuffix } from '@flowboard/testing';
import { createApp, type MembershipApp } from '../../src/app';
import { configSchema } from '../../src/config';

export const SCHEMA = 'membership';

/** The real service in-process on a free port, a gRPC client for it, and a pool for looking at its tables. */
export interface Harness {
  app: MembershipApp;
  client: membership.MembershipServiceClient;
  pool: Pool;
  kafkaBrokers: string[];
  /** Calls an RPC as `userId` (or anonymously); rejects with the raw gRPC error so tests can check codes. */
  call<Res>(
    method: keyof membership.MembershipServiceClient & string,
    request: object,
    userId?: number,
  ): Promise<Res>;
  /** Signs up a new user named `<tag>-<unique suffix>` (display name `name`, default `tag`), with a first API key. */
  signUp(tag: string, name?: string): Promise<{ user: membership.User__Output; apiKey: string }>;
  /** Creates a project of `ownerId`, and finds its default roles by name (Administrators, Members). */
  newProject(
    ownerId: number,
    name?: string,
  ): Promise<{ project: membership.Project__Output; roles: Record<string, membership.Role__Output> }>;
  close(): Promise<void>;
}

export async function startHarness(overrides: Record<string, string> = {}): Promise<Harness> {
  const env = requireEnv('MEMBERSHIP_DATABASE_URL', 'KAFKA_BROKERS');
  const pool = createPool({
    connectionString: env.MEMBERSHIP_DATABASE_URL,
    schema: SCHEMA,
    applicationName: 'membership-test',
    max: 2,
  });
  // Migrations are idempotent: the runner skips what is applied already.
  await migrate(pool, { schema: SCHEMA, dir: path.join(__dirname, '..', '..', 'migrations') });

  const config = loadConfig(configSchema, {
    GRPC_PORT: '0',
    METRICS_PORT: '0',
    DATABASE_URL: env.MEMBERSHIP_DATABASE_URL,
    KAFKA_BROKERS: env.KAFKA_BROKERS,
    OUTBOX_INTERVAL_MS: '100',
    ...overrides,
  });
  const app = createApp(config, {
    logger: createLogger('membership-test', process.env.LOG_LEVEL ?? 'silent'),
  });
  const port = await app.start();
  const proto = loadMembershipProto();
  const client = new proto.flowboard.membership.v1.MembershipService(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
  );

  const harness: Harness = {
    app,
    client,
    pool,
    kafkaBrokers: config.KAFKA_BROKERS,
    call<Res>(method: string, request: object, userId?: number) {
      const metadata = contextToMetadata(
        userId === undefined ? { requestId: 'test' } : { requestId: 'test', userId },
      );
      const fn = (client as unknown as Record<string, grpc.requestCallback<Res> | undefined>)[
        method
      ] as unknown as (
        req: object,
        md: grpc.Metadata,
        options: grpc.CallOptions,
        cb: grpc.requestCallback<Res>,
      ) => void;
      return new Promise<Res>((resolve, reject) =>
        fn.call(client, request, metadata, { deadline: Date.now() + 10_000 }, (err, res) =>
          err ? reject(err) : resolve(res as Res),
        ),
      );
    },
    async signUp(tag, name = tag) {
      const suffix = uniqueSuffix();
      const res = await harness.call<membership.SignUpResponse__Output>('SignUp', {
        name,
        user_name: `${tag}-${suffix}`,
        email: `${tag}-${suffix}@example.test`,
      });
      return { user: res.user!, apiKey: res.api_key };
    },
    async newProject(ownerId, name = 'Sudden Valley') {
      const { project } = await harness.call<membership.CreateProjectResponse__Output>(
        'CreateProject',
        { name },
        ownerId,
      );
      const { roles } = await harness.call<membership.ListRolesResponse__Output>(
        'ListRoles',
        { project_id: project!.id },
        ownerId,
      );
      return { project: project!, roles: Object.fromEntries(roles.map((r) => [r.name, r])) };
    },
    async close() {
      client.close();
      await app.stop();
      await pool.end();
    },
  };
  return harness;
}

/** Resolves to the gRPC status code a call failed with. */
export const codeOf = (promise: Promise<unknown>): Promise<grpc.status | 'OK'> =>
  promise.then(
    () => 'OK' as const,
    (err: grpc.ServiceError) => err.code,
  );
