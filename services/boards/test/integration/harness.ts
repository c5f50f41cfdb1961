import * as grpc from '@grpc/grpc-js';
import { createPool, migrate } from '@flowboard/pg-kit';
import { loadBoardsServices, type boards } from '@flowboard/proto';
import { createLogger, contextToMetadata, type ApiKeyRef } from '@flowboard/service-kit';
import { requireEnv } from '@flowboard/testing';
import { createApp, type BoardsApp, type BoardsAppOptions } from '../../src/app';
import { loadBoardsConfig } from '../../src/config';
import { MIGRATIONS_DIR } from '../../src/db/migrations-dir';

// Real PostgreSQL (schema `boards`, role `boards`), the real gRPC server on port 0, a real client.
export const { BOARDS_DATABASE_URL, KAFKA_BROKERS } = requireEnv('BOARDS_DATABASE_URL', 'KAFKA_BROKERS');

let app: BoardsApp;
/** One client per boards service, and which of them serves each method (names are unique across them). */
let clients: grpc.Client[] = [];
let clientOf = new Map<string, grpc.Client>();

/** Direct database access for assertions the API does not show (positions, history rows). */
export const admin = createPool({
  connectionString: BOARDS_DATABASE_URL,
  schema: 'boards',
  applicationName: 'boards-test',
  max: 2,
});

/** The app under test (after the suite's beforeAll). */
export const boardsApp = (): BoardsApp => app;

let boundPort = 0;
/** The gRPC port the app under test listens on (after the suite's beforeAll). */
export const boardsPort = (): number => boundPort;

/**
 * Registers the suite's hooks: migrate (twice: it is idempotent), boot the service, and tear down. No event
 * consumer unless the suite asks for one (its own group, so the stack's boards service does not share its work).
 */
export function useBoardsService(
  options: BoardsAppOptions = { consumerGroup: false },
  /** Where the service finds PostgreSQL (a relay in front of it, for the outage test); read in beforeAll. */
  databaseUrl: () => string = () => BOARDS_DATABASE_URL,
): void {
  beforeAll(async () => {
    await migrate(admin, { schema: 'boards', dir: MIGRATIONS_DIR });
    await migrate(admin, { schema: 'boards', dir: MIGRATIONS_DIR });
    const config = loadBoardsConfig({
      DATABASE_URL: databaseUrl(),
      KAFKA_BROKERS,
      OUTBOX_INTERVAL_MS: '100',
      GRPC_PORT: '0',
      METRICS_PORT: '0',
      LOG_LEVEL: 'silent',
    });
    app = createApp(config, createLogger('boards-test', process.env.LOG_LEVEL ?? 'silent'), options);
    const port = await app.start();
    boundPort = port;
    const services = loadBoardsServices();
    clients = services.map((Service) => new Service(`127.0.0.1:${port}`, grpc.credentials.createInsecure()));
    clientOf = new Map(
      services.flatMap((Service, i) => Object.keys(Service.service).map((method) => [method, clients[i]!])),
    );
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await app?.stop();
    await admin.end();
  });
}

/** Each test works on its own projects: random ids far above anything a real run creates. */
export const newProjectId = () => 1_000_000_000 + Math.floor(Math.random() * 8_000_000_000_000);

/** The RPCs of a generated client by their proto names (`GetStory`, not its alias `getStory` nor `close`). */
type RpcOf<Client, K = keyof Client> = K extends string ? (K extends Uncapitalize<K> ? never : K) : never;

/** An RPC of any of the boards services (their names are unique across them). */
type Method =
  | RpcOf<boards.StoriesServiceClient>
  | RpcOf<boards.PhasesServiceClient>
  | RpcOf<boards.TagsServiceClient>
  | RpcOf<boards.TasksServiceClient>
  | RpcOf<boards.CommentsServiceClient>
  | RpcOf<boards.HistoryServiceClient>;

/** One unary call with the caller in metadata, as the gateway makes it, to the service that has `method`. */
export function call<Res>(
  method: Method,
  request: object,
  userId: number | null = 42,
  requestId = 'boards-int-test',
  apiKey?: ApiKeyRef,
  deadlineMs = 10_000,
): Promise<Res> {
  const metadata = contextToMetadata({
    requestId,
    ...(userId === null ? {} : { userId }),
    ...(apiKey ? { apiKey } : {}),
  });
  type Unary = (
    request: object,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: (err: grpc.ServiceError | null, res: Res) => void,
  ) => grpc.ClientUnaryCall;
  const client = clientOf.get(method);
  if (!client) throw new Error(`no boards service has a method ${method}`);
  const fn = (client as unknown as Record<Method, Unary>)[method].bind(client);
  return new Promise((resolve, reject) =>
    fn(request, metadata, { deadline: Date.now() + deadlineMs }, (err, res) =>
      err ? reject(err) : resolve(res),
    ),
  );
}

export const createBoard = (projectId: number) =>
  call<boards.CreateBoardResponse__Output>('CreateBoard', { project_id: projectId }).then((r) => r.phases);

export const createStory = (request: Partial<boards.CreateStoryRequest>, userId: number | null = 42) =>
  call<boards.CreateStoryResponse__Output>('CreateStory', { text: 'A story', ...request }, userId).then(
    (r) => r.story!,
  );

export const listStories = (request: Partial<boards.ListStoriesRequest>) =>
  call<boards.ListStoriesResponse__Output>('ListStories', { page: 1, page_size: 100, ...request });

/** The error a call failed with; fails the test if it succeeded. */
export async function grpcError(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (e) {
    return e as grpc.ServiceError;
  }
  throw new Error('expected the call to fail');
}

/** The problem type the service attached to an error (e.g. `invalid-reference`). */
export const reason = (err: grpc.ServiceError) => err.metadata.get('flowboard-problem')[0];
