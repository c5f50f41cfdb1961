import type { Pool } from '@flowboard/pg-kit';
import { commentRepository } from '../comments/db/comment-repository';
import { storyHistoryRepository } from '../history/db/story-history-repository';
import { boardRepository } from '../phases/db/board-repository';
import { phaseRepository } from '../phases/db/phase-repository';
import { outboxRepository } from '../shared/db/outbox-repository';
import { createStore } from '../shared/db/transactional-store';
import { storyRepository } from '../stories/db/story-repository';
import { tagRepository } from '../tags/db/tag-repository';
import { taskRepository } from '../tasks/db/task-repository';

/**
 * The PostgreSQL store of the boards schema: every slice's repositories, on the pool and on one transaction's
 * client. One store for all, because a use case's transaction may span aggregates (a new story with its
 * tasks, tags and first history rows); each slice's use cases see it through their own narrower `Store<...>`.
 */
export function createBoardsStore(pool: Pool, schema: string) {
  return createStore(pool, (db) => ({
    boards: boardRepository(db),
    outbox: outboxRepository(db, schema),
    phases: phaseRepository(db),
    stories: storyRepository(db),
    history: storyHistoryRepository(db),
    tasks: taskRepository(db),
    comments: commentRepository(db),
    tags: tagRepository(db),
  }));
}

export type BoardsStore = ReturnType<typeof createBoardsStore>;
