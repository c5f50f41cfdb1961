import type { Queryable } from '@flowboard/pg-kit';
import { keysetPage } from '../../shared/db/keyset-page';
import type { TaskRecord, TaskRepository } from '../application/ports';
import type { TaskStatus } from '../domain/tasks';

interface TaskRow {
  id: number;
  project_id: number;
  story_id: number;
  text: string;
  status: TaskStatus;
  position: number;
  created_at: Date;
  finished_at: Date | null;
  finished_by: number | null;
  version: number;
}

const COLUMNS =
  'id, project_id, story_id, text, status, position, created_at, finished_at, finished_by, version';

const toTaskRecord = (row: TaskRow): TaskRecord => ({
  id: row.id,
  projectId: row.project_id,
  storyId: row.story_id,
  text: row.text,
  status: row.status,
  position: row.position,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
  finishedBy: row.finished_by,
  version: row.version,
});

export function taskRepository(db: Queryable): TaskRepository {
  return {
    async lockStory(projectId, storyId) {
      // Named (prepared once per connection), as every task and comment write runs it; so is append.
      const result = await db.query({
        name: 'boards-story-lock',
        text: 'SELECT 1 FROM stories WHERE project_id = $1 AND id = $2 FOR NO KEY UPDATE',
        values: [projectId, storyId],
      });
      return result.rowCount === 1;
    },

    async list(projectId, storyId, offset, limit) {
      const [rows, count] = await Promise.all([
        db.query<TaskRow>(
          `SELECT ${COLUMNS} FROM tasks WHERE project_id = $1 AND story_id = $2
           ORDER BY position, id OFFSET $3 LIMIT $4`,
          [projectId, storyId, offset, limit],
        ),
        db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM tasks WHERE project_id = $1 AND story_id = $2',
          [projectId, storyId],
        ),
      ]);
      return { tasks: rows.rows.map(toTaskRecord), total: count.rows[0]?.n ?? 0 };
    },

    async listById(projectId, storyId, window) {
      // tasks_story_id_idx (project_id, story_id, id), migration 0014.
      const { rows, total, more } = await keysetPage<TaskRow>(
        db,
        {
          count: 'SELECT count(*) AS total FROM tasks WHERE project_id = $1 AND story_id = $2',
          rows: `SELECT ${COLUMNS} FROM tasks WHERE project_id = $1 AND story_id = $2`,
          key: 'id',
          params: [projectId, storyId],
        },
        window,
      );
      return { tasks: rows.map(toTaskRecord), total, more };
    },

    async listForStories(projectId, storyIds) {
      if (storyIds.length === 0) return [];
      const result = await db.query<TaskRow>(
        `SELECT ${COLUMNS} FROM tasks WHERE project_id = $1 AND story_id = ANY($2::bigint[])
         ORDER BY story_id, position, id`,
        [projectId, storyIds],
      );
      return result.rows.map(toTaskRecord);
    },

    async find(projectId, storyId, taskId) {
      const result = await db.query<TaskRow>(
        `SELECT ${COLUMNS} FROM tasks WHERE project_id = $1 AND story_id = $2 AND id = $3`,
        [projectId, storyId, taskId],
      );
      const row = result.rows[0];
      return row ? toTaskRecord(row) : undefined;
    },

    async append(projectId, storyId, write) {
      const result = await db.query<TaskRow>({
        name: 'boards-task-append',
        text: `INSERT INTO tasks (project_id, story_id, text, status, position, finished_at, finished_by)
         VALUES ($1, $2, $3, $4,
                 (SELECT coalesce(max(position), 0) + 1 FROM tasks WHERE project_id = $1 AND story_id = $2),
                 $5, $6)
         RETURNING ${COLUMNS}`,
        values: [projectId, storyId, write.text, write.status, write.finishedAt, write.finishedBy],
      });
      return toTaskRecord(result.rows[0] as TaskRow);
    },

    async update(projectId, storyId, taskId, write) {
      const result = await db.query<TaskRow>(
        `UPDATE tasks SET text = $4, status = $5, finished_at = $6, finished_by = $7
         WHERE project_id = $1 AND story_id = $2 AND id = $3
         RETURNING ${COLUMNS}`,
        [projectId, storyId, taskId, write.text, write.status, write.finishedAt, write.finishedBy],
      );
      const row = result.rows[0];
      if (!row) throw new Error(`task ${taskId} vanished during its update`);
      return toTaskRecord(row);
    },

    async delete(projectId, storyId, taskId) {
      const result = await db.query<TaskRow>(
        `DELETE FROM tasks WHERE project_id = $1 AND story_id = $2 AND id = $3 RETURNING ${COLUMNS}`,
        [projectId, storyId, taskId],
      );
      const row = result.rows[0];
      return row ? toTaskRecord(row) : undefined;
    },

    async ids(projectId, storyId) {
      const result = await db.query<{ id: number }>(
        'SELECT id FROM tasks WHERE project_id = $1 AND story_id = $2 ORDER BY position, id',
        [projectId, storyId],
      );
      return result.rows.map((r) => r.id);
    },

    async reorder(projectId, storyId, taskIds) {
      // tasks_position_key is DEFERRABLE: the whole story is renumbered in one statement.
      await db.query('SET CONSTRAINTS tasks_position_key DEFERRED');
      await db.query(
        `UPDATE tasks t SET position = o.ord
         FROM unnest($3::bigint[]) WITH ORDINALITY AS o(id, ord)
         WHERE t.project_id = $1 AND t.story_id = $2 AND t.id = o.id AND t.position <> o.ord`,
        [projectId, storyId, taskIds],
      );
    },
  };
}
