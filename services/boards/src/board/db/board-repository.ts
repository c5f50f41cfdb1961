import type { Queryable } from '@flowboard/pg-kit';
import type { BoardRepository } from '../application/ports';

/** The board row locks one transaction holds, shared by every repository bound to it. */
export interface BoardLocks {
  /** The projects whose board row the transaction has locked (a lock is held until the transaction ends). */
  held: Set<number>;
  /** Called when a statement has taken a board's row lock (for the lock's hold time). */
  onLocked(): void;
}

/** A board's row lock, held to the transaction's end: every write of the board takes it first. */
export const BOARD_LOCK_SQL = 'SELECT 1 FROM boards WHERE project_id = $1 FOR UPDATE';

/**
 * `locks`: the transaction's board locks. A `lock` of a board the transaction already holds needs no statement:
 * the writes gathered into one transaction (board-write-batches.ts) each begin with one.
 */
export function boardRepository(db: Queryable, locks?: BoardLocks): BoardRepository {
  const locked = (projectId: number) => {
    locks?.held.add(projectId);
    locks?.onLocked();
  };
  return {
    async insertIfAbsent(projectId) {
      const result = await db.query(
        `INSERT INTO boards (project_id)
         SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM deleted_projects WHERE project_id = $1)
         ON CONFLICT (project_id) DO NOTHING`,
        [projectId],
      );
      return result.rowCount === 1;
    },

    async allocateStoryId(projectId) {
      // Named (prepared once per connection), as every create runs it; so is lock, which every update runs.
      const result = await db.query<{ last_story_id: number }>({
        name: 'boards-allocate-story-id',
        text: 'UPDATE boards SET last_story_id = last_story_id + 1 WHERE project_id = $1 RETURNING last_story_id',
        values: [projectId],
      });
      const id = result.rows[0]?.last_story_id;
      if (id !== undefined) locked(projectId);
      return id;
    },

    async lock(projectId) {
      if (locks?.held.has(projectId)) return true;
      const result = await db.query({
        name: 'boards-lock',
        text: BOARD_LOCK_SQL,
        values: [projectId],
      });
      if (result.rowCount !== 1) return false;
      locked(projectId);
      return true;
    },

    async deleteProject(projectId, eventId) {
      // The tombstone keeps later CreateBoard calls (retries, lazy creation) from bringing the board back.
      const recorded = await db.query(
        'INSERT INTO deleted_projects (project_id, event_id) VALUES ($1, $2) ON CONFLICT (project_id) DO NOTHING',
        [projectId, eventId],
      );
      // One statement: phases, stories, tags and every story's children go through ON DELETE CASCADE.
      await db.query('DELETE FROM boards WHERE project_id = $1', [projectId]);
      return recorded.rowCount === 1;
    },
  };
}
