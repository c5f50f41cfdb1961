import type { Queryable } from '@flowboard/pg-kit';
import type { BoardRepository } from '../application/ports';

export function boardRepository(db: Queryable): BoardRepository {
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
      const result = await db.query<{ last_story_id: number }>(
        'UPDATE boards SET last_story_id = last_story_id + 1 WHERE project_id = $1 RETURNING last_story_id',
        [projectId],
      );
      return result.rows[0]?.last_story_id;
    },

    async lock(projectId) {
      const result = await db.query('SELECT 1 FROM boards WHERE project_id = $1 FOR UPDATE', [projectId]);
      return result.rowCount === 1;
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
