import type { Queryable } from '@flowboard/pg-kit';
import type { StoryHistoryRepository } from '../application/ports';

/**
 * Milestones (stays in a phase) and steps (periods in a status); the open one has no end time. Each write is one
 * statement: story writes hold their board's lock while they run, so every round trip saved is lock time saved.
 */
export function storyHistoryRepository(db: Queryable): StoryHistoryRepository {
  return {
    async open({ projectId, storyId, phaseId, stepType, at }) {
      await db.query({
        name: 'boards-history-open',
        text: `WITH milestone AS (
                 INSERT INTO story_milestones (project_id, story_id, phase_id, start_time) VALUES ($1, $2, $3, $5)
               )
               INSERT INTO story_steps (project_id, story_id, type, start_time) VALUES ($1, $2, $4, $5)`,
        values: [projectId, storyId, phaseId, stepType, at],
      });
    },

    async transition({ projectId, storyId, phaseId, stepType }) {
      if (phaseId === undefined && stepType === undefined) return;
      // Each open row is closed before its successor is written: the successor's start is read from the closing
      // UPDATE's RETURNING, so the UPDATE has run when the INSERT's row is made, and the partial unique index on
      // the open row sees one open row at a time. now() is the transaction's start; a transaction that waited for
      // the board lock may start before the one that opened the row committed, so the end never goes before the
      // start (end_time >= start_time). A NULL phase or type leaves that history alone.
      await db.query({
        name: 'boards-history-transition',
        text: `WITH closed_milestone AS (
                 UPDATE story_milestones SET end_time = greatest(now(), start_time)
                 WHERE $3::bigint IS NOT NULL AND project_id = $1 AND story_id = $2 AND end_time IS NULL
                 RETURNING end_time
               ), opened_milestone AS (
                 INSERT INTO story_milestones (project_id, story_id, phase_id, start_time)
                 SELECT $1, $2, $3, coalesce((SELECT end_time FROM closed_milestone), now())
                 WHERE $3::bigint IS NOT NULL
               ), closed_step AS (
                 UPDATE story_steps SET end_time = greatest(now(), start_time)
                 WHERE $4::text IS NOT NULL AND project_id = $1 AND story_id = $2 AND end_time IS NULL
                 RETURNING end_time
               )
               INSERT INTO story_steps (project_id, story_id, type, start_time)
               SELECT $1, $2, $4, coalesce((SELECT end_time FROM closed_step), now())
               WHERE $4::text IS NOT NULL`,
        values: [projectId, storyId, phaseId ?? null, stepType ?? null],
      });
    },
  };
}
