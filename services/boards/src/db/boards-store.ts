import { withTransaction, type Pool, type Queryable } from '@flowboard/pg-kit';
import { commentRepository } from '../comments/db/comment-repository';
import { storyHistoryRepository } from '../history/db/story-history-repository';
import { boardRepository } from '../phases/db/board-repository';
import { phaseRepository } from '../phases/db/phase-repository';
import { outboxRepository } from '../shared/db/outbox-repository';
import { storyRepository } from '../stories/db/story-repository';
import { tagRepository } from '../tags/db/tag-repository';
import { taskRepository } from '../tasks/db/task-repository';

/**
 * The PostgreSQL store of the boards schema: every slice's repositories, bound to the pool for single reads, and
 * inside `transaction` to one transaction's client. One store for all, because a use case's transaction may span aggregates (a new story with its
 * tasks, tags and first history rows); each slice's use cases see it through their own narrower `Store<...>`.
 *
 * `onBoardLockReleased` hears how long each transaction that took its board's row lock held it (from the lock to
 * the transaction's end, in seconds): every write of a board waits for that lock, so its hold time bounds the
 * board's writes a second.
 */
export function createBoardsStore(
  pool: Pool,
  schema: string,
  options: { onBoardLockReleased?: (heldSeconds: number) => void } = {},
) {
  const repositories = (db: Queryable, onBoardLocked?: () => void) => ({
    boards: boardRepository(db, onBoardLocked),
    outbox: outboxRepository(db, schema),
    phases: phaseRepository(db),
    stories: storyRepository(db),
    history: storyHistoryRepository(db),
    tasks: taskRepository(db),
    comments: commentRepository(db),
    tags: tagRepository(db),
  });
  const { onBoardLockReleased } = options;
  return {
    ...repositories(pool),
    async transaction<T>(work: (tx: ReturnType<typeof repositories>) => Promise<T>): Promise<T> {
      let lockedAt: bigint | undefined;
      const locked = () => void (lockedAt ??= process.hrtime.bigint());
      try {
        return await withTransaction(pool, (client) => work(repositories(client, locked)));
      } finally {
        if (lockedAt !== undefined) onBoardLockReleased?.(Number(process.hrtime.bigint() - lockedAt) / 1e9);
      }
    },
  };
}

export type BoardsStore = ReturnType<typeof createBoardsStore>;
