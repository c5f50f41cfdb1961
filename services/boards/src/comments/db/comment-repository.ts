import type { Queryable } from '@flowboard/pg-kit';
import { keysetPage } from '../../shared/db/keyset-page';
import type { CommentRecord, CommentRepository } from '../application/ports';

interface CommentRow {
  id: number;
  project_id: number;
  story_id: number;
  author_id: number;
  text: string;
  created_at: Date;
  version: number;
}

const COLUMNS = 'id, project_id, story_id, author_id, text, created_at, version';

const toCommentRecord = (row: CommentRow): CommentRecord => ({
  id: row.id,
  projectId: row.project_id,
  storyId: row.story_id,
  authorId: row.author_id,
  text: row.text,
  createdAt: row.created_at,
  version: row.version,
});

export function commentRepository(db: Queryable): CommentRepository {
  const findOne = async (sql: string, params: unknown[]) => {
    const row = (await db.query<CommentRow>(sql, params)).rows[0];
    return row ? toCommentRecord(row) : undefined;
  };
  const BY_ID = `SELECT ${COLUMNS} FROM comments WHERE project_id = $1 AND story_id = $2 AND id = $3`;

  return {
    async list(projectId, storyId, offset, limit) {
      const [rows, count] = await Promise.all([
        db.query<CommentRow>(
          `SELECT ${COLUMNS} FROM comments WHERE project_id = $1 AND story_id = $2
           ORDER BY created_at, id OFFSET $3 LIMIT $4`,
          [projectId, storyId, offset, limit],
        ),
        db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM comments WHERE project_id = $1 AND story_id = $2',
          [projectId, storyId],
        ),
      ]);
      return { comments: rows.rows.map(toCommentRecord), total: count.rows[0]?.n ?? 0 };
    },

    async listById(projectId, storyId, window) {
      // comments_story_id_idx (project_id, story_id, id), migration 0014: comments_story_idx is in time order.
      const { rows, total, more } = await keysetPage<CommentRow>(
        db,
        {
          count: 'SELECT count(*) AS total FROM comments WHERE project_id = $1 AND story_id = $2',
          rows: `SELECT ${COLUMNS} FROM comments WHERE project_id = $1 AND story_id = $2`,
          key: 'id',
          params: [projectId, storyId],
        },
        window,
      );
      return { comments: rows.map(toCommentRecord), total, more };
    },

    async listForStories(projectId, storyIds) {
      if (storyIds.length === 0) return [];
      const result = await db.query<CommentRow>(
        `SELECT ${COLUMNS} FROM comments WHERE project_id = $1 AND story_id = ANY($2::bigint[])
         ORDER BY story_id, created_at, id`,
        [projectId, storyIds],
      );
      return result.rows.map(toCommentRecord);
    },

    find: (projectId, storyId, commentId) => findOne(BY_ID, [projectId, storyId, commentId]),

    findForUpdate: (projectId, storyId, commentId) =>
      findOne(`${BY_ID} FOR UPDATE`, [projectId, storyId, commentId]),

    async insert(comment) {
      // Named: prepared once per connection, as every new comment runs it.
      const result = await db.query<CommentRow>({
        name: 'boards-comment-insert',
        text: `INSERT INTO comments (project_id, story_id, author_id, text) VALUES ($1, $2, $3, $4)
         RETURNING ${COLUMNS}`,
        values: [comment.projectId, comment.storyId, comment.authorId, comment.text],
      });
      return toCommentRecord(result.rows[0] as CommentRow);
    },

    async updateText(projectId, storyId, commentId, text) {
      const result = await db.query<CommentRow>(
        `UPDATE comments SET text = $4, updated_at = now()
         WHERE project_id = $1 AND story_id = $2 AND id = $3 RETURNING ${COLUMNS}`,
        [projectId, storyId, commentId, text],
      );
      const row = result.rows[0];
      if (!row) throw new Error(`comment ${commentId} vanished during its update`);
      return toCommentRecord(row);
    },

    async delete(projectId, storyId, commentId) {
      const result = await db.query(
        'DELETE FROM comments WHERE project_id = $1 AND story_id = $2 AND id = $3',
        [projectId, storyId, commentId],
      );
      return result.rowCount === 1;
    },
  };
}
