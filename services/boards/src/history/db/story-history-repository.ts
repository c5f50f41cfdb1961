import type { Queryable } from '@flowboard/pg-kit';
import type { StoryHistoryRepository } from '../application/ports';

/** Milestones (stays in a phase) and steps (periods in a status); the open one has no end time. */
export function storyHistoryRepository(db: Queryable): StoryHistoryRepository {
  return {
    async openMilestone({ projectId, storyId, phaseId, at }) {
      await db.query(
        'INSERT INTO story_milestones (project_id, story_id, phase_id, start_time) VALUES ($1, $2, $3, $4)',
        [projectId, storyId, phaseId, at],
      );
    },

    async openStep({ projectId, storyId, type, at }) {
      await db.query(
        'INSERT INTO story_steps (project_id, story_id, type, start_time) VALUES ($1, $2, $3, $4)',
        [projectId, storyId, type, at],
      );
    },

    async moveMilestone({ projectId, storyId, phaseId }) {
      const closed = await db.query<{ end_time: Date }>(
        // now() is the transaction's start; a transaction that waited for the board lock may start before the
        // one that opened this row committed, so the end never goes before the start (end_time >= start_time).
        `UPDATE story_milestones SET end_time = greatest(now(), start_time)
         WHERE project_id = $1 AND story_id = $2 AND end_time IS NULL RETURNING end_time`,
        [projectId, storyId],
      );
      // A second statement: the partial unique index on the open row is checked as each row is written.
      await db.query(
        `INSERT INTO story_milestones (project_id, story_id, phase_id, start_time) VALUES ($1, $2, $3, coalesce($4::timestamptz, now()))`,
        [projectId, storyId, phaseId, closed.rows[0]?.end_time ?? null],
      );
    },

    async changeStep({ projectId, storyId, type }) {
      const closed = await db.query<{ end_time: Date }>(
        // now() is the transaction's start; a transaction that waited for the board lock may start before the
        // one that opened this row committed, so the end never goes before the start (end_time >= start_time).
        `UPDATE story_steps SET end_time = greatest(now(), start_time)
         WHERE project_id = $1 AND story_id = $2 AND end_time IS NULL RETURNING end_time`,
        [projectId, storyId],
      );
      // A second statement: the partial unique index on the open row is checked as each row is written.
      await db.query(
        `INSERT INTO story_steps (project_id, story_id, type, start_time) VALUES ($1, $2, $3, coalesce($4::timestamptz, now()))`,
        [projectId, storyId, type, closed.rows[0]?.end_time ?? null],
      );
    },
  };
}
