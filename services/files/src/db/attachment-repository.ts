import { isPgError, PG_UNIQUE_VIOLATION, type Queryable } from '@flowboard/pg-kit';
import { DomainError } from '@flowboard/service-kit';
import type { AttachmentRecord, AttachmentRepository } from '../application/ports';

interface AttachmentRow {
  id: number;
  project_id: number;
  story_id: number;
  file_name: string;
  content_type: string;
  size_bytes: number;
  token: string;
  object_key: string;
  created_by: number;
  created_at: Date;
}

const COLUMNS =
  'id, project_id, story_id, file_name, content_type, size_bytes, token, object_key, created_by, created_at';

const toRecord = (row: AttachmentRow): AttachmentRecord => ({
  id: row.id,
  projectId: row.project_id,
  storyId: row.story_id,
  fileName: row.file_name,
  contentType: row.content_type,
  sizeBytes: row.size_bytes,
  token: row.token,
  objectKey: row.object_key,
  createdBy: row.created_by,
  createdAt: row.created_at,
});

export function attachmentRepository(db: Queryable): AttachmentRepository {
  return {
    async insertMany(attachments) {
      if (attachments.length === 0) return [];
      // One statement, so the rows appear together or not at all; ids follow the input order.
      const column = <K extends keyof (typeof attachments)[number]>(key: K) => attachments.map((a) => a[key]);
      const result = await insertOrConflict(() =>
        db.query<AttachmentRow>(
          `INSERT INTO attachments (project_id, story_id, file_name, content_type, size_bytes, token, object_key, created_by)
         SELECT t.project_id, t.story_id, t.file_name, t.content_type, t.size_bytes, t.token, t.object_key, t.created_by
         FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::bigint[])
              WITH ORDINALITY AS t(project_id, story_id, file_name, content_type, size_bytes, token, object_key, created_by, ord)
         ORDER BY t.ord
         RETURNING ${COLUMNS}`,
          [
            column('projectId'),
            column('storyId'),
            column('fileName'),
            column('contentType'),
            column('sizeBytes'),
            column('token'),
            column('objectKey'),
            column('createdBy'),
          ],
        ),
      );
      const byToken = new Map(result.rows.map((row) => [row.token, toRecord(row)]));
      return attachments.map((a) => {
        const record = byToken.get(a.token);
        if (!record) throw new Error('attachment insert returned fewer rows than it was given');
        return record;
      });
    },

    async listByStory(projectId, storyId) {
      const result = await db.query<AttachmentRow>(
        `SELECT ${COLUMNS} FROM attachments WHERE project_id = $1 AND story_id = $2 ORDER BY id`,
        [projectId, storyId],
      );
      return result.rows.map(toRecord);
    },

    async find(projectId, storyId, attachmentId) {
      const result = await db.query<AttachmentRow>(
        `SELECT ${COLUMNS} FROM attachments WHERE project_id = $1 AND story_id = $2 AND id = $3`,
        [projectId, storyId, attachmentId],
      );
      const row = result.rows[0];
      return row ? toRecord(row) : undefined;
    },

    async rename(projectId, storyId, attachmentId, fileName) {
      const result = await db.query<AttachmentRow>(
        `UPDATE attachments SET file_name = $4 WHERE project_id = $1 AND story_id = $2 AND id = $3
         RETURNING ${COLUMNS}`,
        [projectId, storyId, attachmentId, fileName],
      );
      const row = result.rows[0];
      return row ? toRecord(row) : undefined;
    },

    async delete(projectId, storyId, attachmentId) {
      const result = await db.query<AttachmentRow>(
        `DELETE FROM attachments WHERE project_id = $1 AND story_id = $2 AND id = $3 RETURNING ${COLUMNS}`,
        [projectId, storyId, attachmentId],
      );
      const row = result.rows[0];
      return row ? toRecord(row) : undefined;
    },
  };
}

/** A unique violation (a token or key collision, ~2^-128) is a conflict the caller may retry, never a raw SQL error. */
async function insertOrConflict<T>(insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (err) {
    if (isPgError(err, PG_UNIQUE_VIOLATION)) {
      throw new DomainError('Conflict', 'The attachment could not be stored; try again.', { cause: err });
    }
    throw err;
  }
}
