import { projectDeletedV1 } from '@flowboard/events';
import {
  BackgroundConsumer,
  createKafka,
  kafkaSecurity,
  createLazyTopicPublisher,
  topicSettings,
} from '@flowboard/messaging';
import { createPool, OutboxRelay, stopOutbox } from '@flowboard/pg-kit';
import {
  BOARDS_LEGACY_SERVICE,
  boardsLegacyDefinition,
  loadBoardsProto,
  type boards,
} from '@flowboard/proto';
import {
  createGrpcServer,
  createLogger,
  createMetricsRegistry,
  histogram,
  metricsEndpoint,
  observePool,
  settlesWithin,
  SHUTDOWN_STEP_TIMEOUT_MS,
  type GrpcServiceRegistration,
  type Logger,
} from '@flowboard/service-kit';
import { makeDeleteProjectBoard } from './board/application/delete-project-board';
import { createProjectDeletedHandler } from './board/messaging/project-deleted.handler';
import { commentsUseCases } from './comments/application/comments-use-cases';
import { commentsHandlers } from './comments/grpc/comments.handlers';
import type { BoardsConfig } from './config';
import { createBoardsStore } from './db/boards-store';
import { historyUseCases } from './history/application/history-use-cases';
import { storyHistoryReader } from './history/db/story-history-reader';
import { historyHandlers } from './history/grpc/history.handlers';
import { phasesUseCases } from './phases/application/phases-use-cases';
import { phasesHandlers } from './phases/grpc/phases.handlers';
import { storiesUseCases } from './stories/application/stories-use-cases';
import { ownedStoriesReader } from './stories/db/owned-stories-reader';
import { storyPagesReader } from './stories/db/story-pages-reader';
import { pruneStoryTombstones } from './stories/db/story-tombstone-pruner';
import { TOMBSTONE_RETENTION_DAYS } from './stories/domain/sync-position';
import { makeBulkCreateStories, makeBulkUpdateStories } from './bulk/application/bulk-stories';
import { bulkHandlers } from './bulk/grpc/bulk.handlers';
import { makeSearchStories } from './search/application/search-stories';
import { storySearchReader } from './search/db/story-search-reader';
import { searchHandlers } from './search/grpc/search.handlers';
import { phaseStoriesHandlers } from './stories/grpc/phase-stories.handlers';
import { storiesHandlers } from './stories/grpc/stories.handlers';
import { newStoryTags } from './tags/application/new-story-tags';
import { storyTagsMessages } from './tags/application/tag-message';
import { tagsUseCases } from './tags/application/tags-use-cases';
import { tagsHandlers } from './tags/grpc/tags.handlers';
import { newStoryTasks } from './tasks/application/new-story-tasks';
import { tasksUseCases } from './tasks/application/tasks-use-cases';
import { tasksHandlers } from './tasks/grpc/tasks.handlers';

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
 * Composition root: pool → store → each slice's use cases → its gRPC service, all six on one server; plus the
 * outbox relay (story-deleted and resource-changed events) and the project-deleted consumer. Nothing connects until `start`; Kafka
 * is never needed to start or to answer a call.
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
    max: config.DATABASE_POOL_SIZE,
  });
  pool.on('error', (err) => logger.error({ err }, 'idle PostgreSQL client failed'));
  const metrics = createMetricsRegistry('boards');
  observePool(metrics, pool);
  const metricsServer = metricsEndpoint(metrics, {
    port: config.METRICS_PORT,
    host: config.GRPC_HOST,
    logger,
  });
  const boardLockHeld = histogram(metrics, {
    name: 'flowboard_board_lock_held_seconds',
    help: "How long a transaction held its board's row lock, from taking it to the transaction's end (one write, or several gathered): it bounds a board's writes a second",
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
  });
  const boardBatch = histogram(metrics, {
    name: 'flowboard_board_write_batch_size',
    help: "Writes per transaction of a board's locked writes (creates, moves, updates): the writes waiting for one board share one",
    buckets: [1, 2, 4, 8, 16, 32, 64],
  });
  const store = createBoardsStore(pool, config.DB_SCHEMA, {
    onBoardLockReleased: (seconds) => boardLockHeld.observe(seconds),
    maxBoardBatch: config.BOARD_BATCH_MAX,
    onBoardBatch: (writes) => boardBatch.observe(writes),
  });

  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'boards',
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
  const groupId = options.consumerGroup ?? CONSUMER_GROUP;
  const consumer =
    groupId === false
      ? undefined
      : new BackgroundConsumer({
          kafka,
          groupId,
          topics: [projectDeletedV1.topic],
          topicSettings: topicSettings(config),
          logger,
          metrics,
          handle: createProjectDeletedHandler({ deleteProjectBoard: makeDeleteProjectBoard(store), logger }),
        });
  const v1 = loadBoardsProto().flowboard.boards.v1;
  /** One of the six services, registered (and reported by health) as `flowboard.boards.v1.<name>`. */
  const service = (
    name: keyof typeof v1 & `${string}Service`,
    implementation: GrpcServiceRegistration['implementation'],
  ): GrpcServiceRegistration => ({
    name: `flowboard.boards.v1.${name}`,
    definition: v1[name].service,
    implementation,
  });
  // Every write with events wakes the relay once it commits; stories (and a tag's stories) also read cursor pages
  // and /me/stories on the pool; history and search only read, on the pool. Slices import only those below them
  // (board ← phases ← stories ← tags, tasks, comments), so what a lower slice serves with a higher one's help is
  // joined here: a new story's tasks and tags, a story page's tags, and PhasesService's methods about a phase's
  // stories.
  const storyPages = storyPagesReader(pool);
  const tags = tagsUseCases(store, { storyPages, wakeOutbox: relay.wake });
  const newStoryParts = [newStoryTasks, newStoryTags];
  const stories = storiesUseCases(store, {
    ownedStories: ownedStoriesReader(pool),
    storyPages,
    wakeOutbox: relay.wake,
    newStoryParts,
  });
  const storyTags = async (projectId: number, storyIds: number[]) =>
    storyTagsMessages(await tags.batchGetStoryTags(projectId, storyIds));
  const phases: boards.PhasesServiceHandlers = {
    ...phasesHandlers(logger, phasesUseCases(store, relay.wake)),
    ...phaseStoriesHandlers(logger, stories),
  };
  const history = historyUseCases(storyHistoryReader(pool), config.METRICS_WINDOW_DAYS);
  const services = [
    service('StoriesService', {
      ...storiesHandlers(logger, stories, storyTags),
      ...searchHandlers(logger, makeSearchStories(storySearchReader(pool))),
      ...bulkHandlers(logger, {
        bulkCreateStories: makeBulkCreateStories(store, relay.wake, newStoryParts),
        bulkUpdateStories: makeBulkUpdateStories(store, relay.wake),
      }),
    }),
    service('PhasesService', phases),
    service('TagsService', tagsHandlers(logger, tags)),
    service('TasksService', tasksHandlers(logger, tasksUseCases(store, relay.wake))),
    service('CommentsService', commentsHandlers(logger, commentsUseCases(store, relay.wake))),
    service('HistoryService', historyHandlers(logger, history)),
  ];
  const server = createGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    metrics,
    services: [...services, legacyService(services)],
  });

  // Sync tombstones older than the retention go hourly (README "Sync: cursors and updatedSince"); every replica may.
  let pruning: NodeJS.Timeout | undefined;
  const pruneTombstones = () =>
    pruneStoryTombstones(pool, TOMBSTONE_RETENTION_DAYS).catch((err: unknown) =>
      logger.warn({ err }, 'pruning story tombstones failed; the next pass retries'),
    );

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
      pruning = setInterval(() => void pruneTombstones(), TOMBSTONE_PRUNE_INTERVAL_MS);
      pruning.unref();
      return port;
    },
    stop: () =>
      (stopped ??= (async () => {
        clearInterval(pruning);
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

const TOMBSTONE_PRUNE_INTERVAL_MS = 60 * 60_000;

/**
 * Every method of the six services again under the name they had before the split (`BoardsService`), by the same
 * handlers: gateways of the release before the split, and this release's gateway, call it (see
 * BOARDS_LEGACY_SERVICE in @flowboard/proto).
 */
function legacyService(services: GrpcServiceRegistration[]): GrpcServiceRegistration {
  return {
    name: BOARDS_LEGACY_SERVICE,
    definition: boardsLegacyDefinition(),
    implementation: Object.assign({}, ...services.map((s) => s.implementation)),
  };
}
