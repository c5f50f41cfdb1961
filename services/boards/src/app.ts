import { createPool } from '@flowboard/pg-kit';
import { loadBoardsProto } from '@flowboard/proto';
import { createGrpcServer, createLogger, type Logger } from '@flowboard/service-kit';
import { makeCreateBoard } from './application/create-board';
import { makeCreateStory } from './application/create-story';
import { makeGetStory } from './application/get-story';
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
import type { BoardsConfig } from './config';
import { createBoardsStore } from './db/boards-store';
import { boardsHandlers } from './grpc/boards.handlers';

export interface BoardsApp {
  /** Starts serving; resolves to the bound gRPC port (tests pass port 0). */
  start(): Promise<number>;
  /** NOT_SERVING and drain the gRPC server, then close the pool. */
  stop(): Promise<void>;
  readonly logger: Logger;
}

/** Composition root: pool → store → use cases → gRPC server. Nothing connects until `start`. */
export function createApp(
  config: BoardsConfig,
  logger: Logger = createLogger('boards', config.LOG_LEVEL),
): BoardsApp {
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    applicationName: 'boards',
  });
  pool.on('error', (err) => logger.error({ err }, 'idle PostgreSQL client failed'));
  const store = createBoardsStore(pool);
  const handlers = boardsHandlers(logger, {
    createBoard: makeCreateBoard(store),
    listPhases: makeListPhases(store),
    createStory: makeCreateStory(store),
    getStory: makeGetStory(store),
    listStories: makeListStories(store),
    updateStory: makeUpdateStory(store),
    deleteStory: makeDeleteStory(store),
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
  });
  const proto = loadBoardsProto();
  const server = createGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
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
    start: () => server.start(),
    stop: () =>
      (stopped ??= (async () => {
        await server.stop();
        await pool.end();
      })()),
  };
}
