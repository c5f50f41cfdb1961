import { createKafka, createLazyTopicPublisher, kafkaSecurity, topicSettings } from '@flowboard/messaging';
import { createPool, OutboxRelay, stopOutbox } from '@flowboard/pg-kit';
import { loadMembershipProto } from '@flowboard/proto';
import {
  createGrpcServer,
  createLogger,
  createMetricsRegistry,
  metricsEndpoint,
  observePool,
  type Logger,
} from '@flowboard/service-kit';
import { createAccountUseCases } from './application/accounts';
import { createApiKeyUseCases } from './application/api-keys';
import { createEnablementUseCases } from './application/enablement';
import { createInviteUseCases } from './application/invites';
import { createProjectUseCases } from './application/projects';
import { createUpdateCurrentUser } from './application/update-current-user';
import { createAuthenticateApiKey } from './application/authenticate-api-key';
import { createBatchGetUsers } from './application/batch-get-users';
import { createResolveNames } from './application/resolve-names';
import { createCreateInvite } from './application/create-invite';
import { createCreateProject } from './application/create-project';
import { createGetCurrentUser } from './application/get-current-user';
import { createGetProject } from './application/get-project';
import { createGetProjectAccess } from './application/get-project-access';
import { createProjectMemberUseCases } from './application/project-members';
import { createRoleMemberUseCases } from './application/role-members';
import { createRoleUseCases } from './application/roles';
import { createSignUp } from './application/sign-up';
import type { MembershipConfig } from './config';
import { PgDatabase } from './db/database';
import { createMembershipHandlers } from './grpc/membership.handlers';

export const SERVICE_NAME = 'flowboard.membership.v1.MembershipService';

export interface MembershipApp {
  /** Serves gRPC and starts the outbox relay; resolves to the bound port (0 in the config = any free port). */
  start(): Promise<number>;
  /** Drains gRPC calls, stops the relay, closes Kafka and PostgreSQL. Safe to call more than once. */
  stop(): Promise<void>;
  /** The bound metrics port once started (METRICS_PORT 0 = any free port). */
  metricsPort(): number;
}

/** The composition root: pool, repositories, use cases, gRPC server and outbox relay. */
export function createApp(config: MembershipConfig, options: { logger?: Logger } = {}): MembershipApp {
  const logger = options.logger ?? createLogger('membership', config.LOG_LEVEL);
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    applicationName: 'membership',
    max: config.DATABASE_POOL_SIZE,
  });
  pool.on('error', (err) => logger.warn({ err }, 'idle PostgreSQL client failed'));
  const metrics = createMetricsRegistry('membership');
  observePool(metrics, pool);
  const metricsServer = metricsEndpoint(metrics, {
    port: config.METRICS_PORT,
    host: config.GRPC_HOST,
    logger,
  });

  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'membership',
    logger,
    ...kafkaSecurity(config),
  });
  const publisher = createLazyTopicPublisher(kafka, { ...topicSettings(config), logger });
  const relay = new OutboxRelay({
    pool,
    schema: config.DB_SCHEMA,
    publisher,
    logger,
    intervalMs: config.OUTBOX_INTERVAL_MS,
    retentionMs: config.OUTBOX_RETENTION_MINUTES * 60_000,
    metrics,
  });

  const db = new PgDatabase(pool, config.DB_SCHEMA);
  const limits = {
    collaboratorLimit: config.DEFAULT_COLLABORATOR_LIMIT,
    storageLimitBytes: config.DEFAULT_STORAGE_LIMIT_BYTES,
  };
  const handlers = createMembershipHandlers(
    {
      signUp: createSignUp({ db, enabled: config.SIGNUP_ENABLED }),
      authenticateApiKey: createAuthenticateApiKey({ db }),
      getCurrentUser: createGetCurrentUser({ db }),
      batchGetUsers: createBatchGetUsers({ db }),
      resolveNames: createResolveNames({ db }),
      createProject: createCreateProject({ db }),
      getProject: createGetProject({ db }),
      getProjectAccess: createGetProjectAccess({ db }),
      createInvite: createCreateInvite({
        db,
        inviteTtlDays: config.INVITE_TTL_DAYS,
        signal: relay.wake,
        limits,
      }),
      roles: createRoleUseCases({ db, signal: relay.wake }),
      roleMembers: createRoleMemberUseCases({ db, limits, signal: relay.wake }),
      projectMembers: createProjectMemberUseCases({ db, limits, signal: relay.wake }),
      invites: createInviteUseCases({ db, limits, signal: relay.wake }),
      projects: createProjectUseCases({ db, signal: relay.wake, limits }),
      apiKeys: createApiKeyUseCases({ db }),
      updateCurrentUser: createUpdateCurrentUser({ db }),
      accounts: createAccountUseCases({ db, defaults: limits }),
      enablement: createEnablementUseCases({ db }),
    },
    logger,
  );

  const proto = loadMembershipProto();
  const server = createGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    metrics,
    services: [
      {
        name: SERVICE_NAME,
        definition: proto.flowboard.membership.v1.MembershipService.service,
        implementation: handlers,
      },
    ],
  });

  let stopping: Promise<void> | undefined;

  return {
    async start() {
      await metricsServer.start();
      const port = await server.start();
      relay.start();
      return port;
    },
    metricsPort: metricsServer.port,

    stop() {
      stopping ??= (async () => {
        await server.stop();
        const released = await stopOutbox(relay, publisher, logger);
        // pool.end() waits for checked-out clients; a relay pass still holding one would keep it waiting.
        if (released) await pool.end();
        await metricsServer.stop();
        logger.info('membership stopped');
      })();
      return stopping;
    },
  };
}
