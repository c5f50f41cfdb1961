import { AsyncResource } from 'node:async_hooks';
import { projectDeletedV1 } from '@flowboard/events';
import { BackgroundConsumer, createKafka, createLazyTopicPublisher } from '@flowboard/messaging';
import { createPool, OutboxRelay, stopOutbox } from '@flowboard/pg-kit';
import { loadBoardsProto } from '@flowboard/proto';
import {
  createGrpcServer,
  createLogger,
  createMetricsRegistry,
  metricsEndpoint,
  observePool,
  settlesWithin,
  SHUTDOWN_STEP_TIMEOUT_MS,
  type Logger,
} from '@flowboard/service-kit';
import { makeCreateBoard } from './application/create-board';
import { makeCreateStory } from './application/create-story';
import { makeBatchGetStories, makeGetStory } from './application/get-story';
import { makeDeleteStory } from './application/delete-story';
import { makeListPhases } from './application/list-phases';
import { makeListStories } from './application/list-stories';
import { makeUpdateStory } from './application/update-story';
import { makeUpdateStories } from './application/update-stories';
import { makeGetPhase } from './application/get-phase';
import { makeCreatePhase } from './application/create-phase';
import { makeUpdatePhase } from './application/update-phase';
import { makeDeletePhase } from './application/delete-phase';
import { makeReorderPhases } from './application/reorder-phases';
import { makeListPhaseStories } from './application/list-phase-stories';
import { makeReorderPhaseStories } from './application/reorder-phase-stories';
import { makeListTasks } from './application/list-tasks';
import { makeGetTask } from './application/get-task';
import { makeCreateTask } from './application/create-task';
import { makeUpdateTask } from './application/update-task';
import { makeDeleteTask } from './application/delete-task';
import { makeReorderTasks } from './application/reorder-tasks';
import { makeBatchGetStoryTasks } from './application/batch-get-story-tasks';
import { makeListComments } from './application/list-comments';
import { makeGetComment } from './application/get-comment';
import { makeCreateComment } from './application/create-comment';
import { makeUpdateComment } from './application/update-comment';
import { makeDeleteComment } from './application/delete-comment';
import { makeBatchGetStoryComments } from './application/batch-get-story-comments';
import { makeDeleteProjectBoard } from './application/delete-project-board';
import { makeBatchGetStoryHistory } from './application/batch-get-story-history';
import { makeBatchGetProjectMetrics } from './application/batch-get-project-metrics';
import { makeBatchListPhases } from './application/batch-list-phases';
import { makeListOwnedStories } from './application/list-owned-stories';
import { storyHistoryReader } from './db/story-history-reader';
import { tagUseCases } from './application/tag-use-cases';
import type { BoardsConfig } from './config';
import { createBoardsStore } from './db/boards-store';
import { boardsHandlers } from './grpc/boards.handlers';
import { createProjectDeletedHandler } from './messaging/project-deleted.handler';

/** The consumer group of boards' event consumers (its dead letters go to `boards-dlq`). */
export const CONSUMER_GROUP = 'boards';

export interface BoardsApp {
  /** Starts serving; resolves to the bound gRPC port (tests pass port 0). */
  start(): Promise<number>;
  /** NOT_SERVING and drain the gRPC server, stop the consumer and the relay, then close Kafka and the pool. */
  stop(): Promise<void>;
  /** Whether the event consumer has joined its group (tests wait for it). */
  consumerReady(): boolean;
  /** The bound metrics port once started (METRICS_PORT 0 = any free port). */
  metricsPort(): number;
  readonly logger: Logger;
}

export interface BoardsAppOptions {
  /** Another consumer group (tests), or false for no event consumer at all. Default `boards`. */
  consumerGroup?: string | false;
}

/**
 * Composition root: pool → store → use cases → gRPC server, plus the outbox relay (story-deleted events) and the
 * project-deleted consumer. Nothing connects until `start`; Kafka is never needed to start or to answer a call.
 */
export function createApp(
  config: BoardsConfig,
  logger: Logger = createLogger('boards', config.LOG_LEVEL),
  options: BoardsAppOptions = {},
): BoardsApp {
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    applicationName: 'boards',
  });
  pool.on('error', (err) => logger.error({ err }, 'idle PostgreSQL client failed'));
  const metrics = createMetricsRegistry('boards');
  observePool(metrics, pool);
  const metricsServer = metricsEndpoint(metrics, {
    port: config.METRICS_PORT,
    host: config.GRPC_HOST,
    logger,
  });
  const store = createBoardsStore(pool, config.DB_SCHEMA);

  const kafka = createKafka({ brokers: config.KAFKA_BROKERS, clientId: 'boards', logger });
  const publisher = createLazyTopicPublisher(kafka);
  const relay = new OutboxRelay({
    pool,
    schema: config.DB_SCHEMA,
    publisher,
    logger,
    intervalMs: config.OUTBOX_INTERVAL_MS,
    metrics,
  });
  // Bound here, outside any request: relay passes woken by a request must not run (and log) in its context.
  const wakeRelay = AsyncResource.bind(() => relay.wake());
  const groupId = options.consumerGroup ?? CONSUMER_GROUP;
  const consumer =
    groupId === false
      ? undefined
      : new BackgroundConsumer({
          kafka,
          groupId,
          topics: [projectDeletedV1.topic],
          logger,
          metrics,
          handle: createProjectDeletedHandler({ deleteProjectBoard: makeDeleteProjectBoard(store), logger }),
        });
  const history = storyHistoryReader(pool);
  const handlers = boardsHandlers(logger, {
    ...tagUseCases(store),
    createBoard: makeCreateBoard(store),
    listPhases: makeListPhases(store),
    createStory: makeCreateStory(store),
    getStory: makeGetStory(store),
    batchGetStories: makeBatchGetStories(store),
    listStories: makeListStories(store),
    updateStory: makeUpdateStory(store),
    deleteStory: makeDeleteStory(store, wakeRelay),
    updateStories: makeUpdateStories(store),
    getPhase: makeGetPhase(store),
    createPhase: makeCreatePhase(store),
    updatePhase: makeUpdatePhase(store),
    deletePhase: makeDeletePhase(store),
    reorderPhases: makeReorderPhases(store),
    listPhaseStories: makeListPhaseStories(store),
    reorderPhaseStories: makeReorderPhaseStories(store),
    listTasks: makeListTasks(store),
    getTask: makeGetTask(store),
    createTask: makeCreateTask(store),
    updateTask: makeUpdateTask(store),
    deleteTask: makeDeleteTask(store),
    reorderTasks: makeReorderTasks(store),
    batchGetStoryTasks: makeBatchGetStoryTasks(store),
    listComments: makeListComments(store),
    getComment: makeGetComment(store),
    createComment: makeCreateComment(store),
    updateComment: makeUpdateComment(store),
    deleteComment: makeDeleteComment(store),
    batchGetStoryComments: makeBatchGetStoryComments(store),
    batchGetStoryHistory: makeBatchGetStoryHistory(history),
    batchGetProjectMetrics: makeBatchGetProjectMetrics(history, config.METRICS_WINDOW_DAYS),
    batchListPhases: makeBatchListPhases(store),
    listOwnedStories: makeListOwnedStories(history),
  });
  const proto = loadBoardsProto();
  const server = createGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    metrics,
    services: [
      {
        name: 'flowboard.boards.v1.BoardsService',
        definition: proto.flowboard.boards.v1.BoardsService.service,
        implementation: handlers,
      },
    ],
  });

  let stopped: Promise<void> | undefined;
  return {
    logger,
    consumerReady: () => consumer?.isReady() === true,
    metricsPort: metricsServer.port,
    async start() {
      await metricsServer.start();
      const port = await server.start();
      relay.start();
      consumer?.start();
      return port;
    },
    stop: () =>
      (stopped ??= (async () => {
        await server.stop();
        // Waits for a message in hand to finish (it uses the pool); bounded, like every step below.
        if (consumer && !(await settlesWithin(consumer.stop(), SHUTDOWN_STEP_TIMEOUT_MS)))
          logger.warn('Kafka consumer did not stop in time');
        const released = await stopOutbox(relay, publisher, logger);
        // pool.end() waits for checked-out clients; a relay pass still holding one would keep it waiting.
        if (released) await pool.end();
        await metricsServer.stop();
      })()),
  };
}
