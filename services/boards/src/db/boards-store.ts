import { withTransaction, type Pool, type Queryable } from '@flowboard/pg-kit';
import type { BoardsRepositories, BoardsStore } from '../application/ports';
import { boardRepository } from './board-repository';
import { commentRepository } from './comment-repository';
import { outboxRepository } from './outbox-repository';
import { phaseRepository } from './phase-repository';
import { storyHistoryRepository } from './story-history-repository';
import { storyRepository } from './story-repository';
import { tagRepository } from './tag-repository';
import { taskRepository } from './task-repository';

const repositories = (db: Queryable, schema: string): BoardsRepositories => ({
  boards: boardRepository(db),
  outbox: outboxRepository(db, schema),
  phases: phaseRepository(db),
  stories: storyRepository(db),
  history: storyHistoryRepository(db),
  tasks: taskRepository(db),
  comments: commentRepository(db),
  tags: tagRepository(db),
});

/** The PostgreSQL BoardsStore: repositories on the pool, and the same repositories on one transaction's client. */
export function createBoardsStore(pool: Pool, schema: string): BoardsStore {
  return {
    ...repositories(pool, schema),
    transaction: (work) => withTransaction(pool, (client) => work(repositories(client, schema))),
  };
}
