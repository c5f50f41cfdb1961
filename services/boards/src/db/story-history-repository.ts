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
      await db.query(
        `UPDATE story_milestones SET end_time = now() WHERE project_id = $1 AND story_id = $2 AND end_time IS NULL`,
        [projectId, storyId],
      );
      // A second statement: the partial unique index on the open row is checked as each row is written.
      await db.query(
        `INSERT INTO story_milestones (project_id, story_id, phase_id, start_time) VALUES ($1, $2, $3, now())`,
        [projectId, storyId, phaseId],
      );
    },

    async changeStep({ projectId, storyId, type }) {
      await db.query(
        `UPDATE story_steps SET end_time = now() WHERE project_id = $1 AND story_id = $2 AND end_time IS NULL`,
        [projectId, storyId],
      );
      // A second statement: the partial unique index on the open row is checked as each row is written.
      await db.query(
        `INSERT INTO story_steps (project_id, story_id, type, start_time) VALUES ($1, $2, $3, now())`,
        [projectId, storyId, type],
      );
    },
  };
}
