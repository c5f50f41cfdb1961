import type { Pool } from '@flowboard/pg-kit';
import { boardRepository } from '../board/db/board-repository';
import { withBoardTransactions, type BoardTransactionsOptions } from '../board/db/board-transactions';
import { savepoints } from '../board/db/savepoints';
import { commentRepository } from '../comments/db/comment-repository';
import { storyHistoryRepository } from '../history/db/story-history-repository';
import { phaseRepository } from '../phases/db/phase-repository';
import { outboxRepository } from '../shared/db/outbox-repository';
import { storyRepository } from '../stories/db/story-repository';
import { tagRepository } from '../tags/db/tag-repository';
import { taskRepository } from '../tasks/db/task-repository';

/**
 * The PostgreSQL store of the boards schema: every slice's repositories in one store, because a use case's
 * transaction may span aggregates (a new story with its tasks, tags and first history rows); each slice's use
 * cases see it through their own narrower `Store<...>`. The transactions, the board locks they hold and the
 * batching of a board's writes are the board's (board/db/board-transactions.ts).
 */
export function createBoardsStore(pool: Pool, schema: string, options: BoardTransactionsOptions = {}) {
  return withBoardTransactions(
    pool,
    (db, locks) => ({
      boards: boardRepository(db, locks),
      outbox: outboxRepository(db, schema),
      phases: phaseRepository(db),
      stories: storyRepository(db),
      history: storyHistoryRepository(db),
      tasks: taskRepository(db),
      comments: commentRepository(db),
      tags: tagRepository(db),
      savepoints: savepoints(db),
    }),
    options,
  );
}

export type BoardsStore = ReturnType<typeof createBoardsStore>;
