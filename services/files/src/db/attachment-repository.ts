import type { OutboxMessage } from '@flowboard/events';
import {
  enqueueOutboxAll,
  isPgError,
  PG_UNIQUE_VIOLATION,
  withTransaction,
  type Pool,
  type PoolClient,
} from '@flowboard/pg-kit';
import { DomainError, requireVersion } from '@flowboard/service-kit';
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
  account_id: number | null;
  created_at: Date;
  version: number;
}

const COLUMNS = `id, project_id, story_id, file_name, content_type, size_bytes, token, object_key, created_by,
  account_id, created_at, version`;

/**
 * A conditional write's condition: `$n` is the expected version, or NULL for an unconditional write. In the
 * write's own statement, so the row lock decides: of concurrent writes expecting one version, the first to
 * lock the row changes it and the others, re-checking the row as that one left it, find another version.
 */
const atVersion = (param: string) => `(${param}::bigint IS NULL OR version = ${param})`;

/**
 * Deleting rows and freeing their bytes is one statement: `deleted` is a CTE that DELETEs … RETURNING the rows
 * (it must expose size_bytes and account_id), the usage drops by their sum per account.
 */
const freeing = (deleted: string, select: string) => `
  WITH deleted AS (${deleted}),
  freed AS (
    UPDATE account_storage a SET used_bytes = a.used_bytes - f.bytes
    FROM (SELECT account_id, sum(size_bytes)::bigint AS bytes FROM deleted
          WHERE account_id IS NOT NULL GROUP BY account_id) f
    WHERE a.account_id = f.account_id
  )
  ${select}`;

/**
 * Uploads commit under a shared lock on their project, deletions of the project or a story take it exclusively:
 * so a deletion either sees an upload's rows, or the upload sees the deletion's tombstone. (Hashed: a collision
 * only serialises two unrelated projects for a moment.)
 */
const lockProject = (client: PoolClient, projectId: number, mode: 'shared' | 'exclusive') =>
  client.query(
    `SELECT ${mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock'}(hashtextextended('files.project:' || $1::text, 0))`,
    [projectId],
  );

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
  accountId: row.account_id,
  createdAt: row.created_at,
  version: row.version,
});

/**
 * The attachments of the files schema (`schema`, also the home of the outbox its writes' events go to). Every
 * write is one transaction, its events included.
 */
export function attachmentRepository(db: Pool, schema: string): AttachmentRepository {
  const enqueue = (client: PoolClient, events: readonly OutboxMessage[]) =>
    enqueueOutboxAll(client, schema, events);

  /**
   * After a conditional write matched no row: PreconditionFailed when the attachment exists (at another
   * version; versions only rise, so never at the expected one again), nothing when it does not (NotFound).
   */
  async function refuseOtherVersion(
    projectId: number,
    storyId: number,
    attachmentId: number,
    expectedVersion: number,
  ): Promise<void> {
    const result = await db.query<{ version: number }>(
      'SELECT version FROM attachments WHERE project_id = $1 AND story_id = $2 AND id = $3',
      [projectId, storyId, attachmentId],
    );
    const current = result.rows[0]?.version;
    if (current !== undefined) requireVersion('Attachment', attachmentId, current, expectedVersion);
  }

  return {
    async commitUpload(reservationId, attachments, events) {
      if (attachments.length === 0) return [];
      const projectIds = new Set(attachments.map((a) => a.projectId));
      const accountIds = new Set(attachments.map((a) => a.accountId));
      const [first] = attachments;
      if (!first || projectIds.size !== 1 || accountIds.size !== 1 || first.accountId === null) {
        throw new Error('one upload commits into one project and one account');
      }
      const column = <K extends keyof (typeof attachments)[number]>(key: K) => attachments.map((a) => a[key]);
      return withTransaction(db, async (client) => {
        await lockProject(client, first.projectId, 'shared');
        const gone = await client.query(
          `SELECT 1 FROM deleted_projects WHERE project_id = $1
           UNION ALL
           SELECT 1 FROM deleted_stories WHERE project_id = $1 AND story_id = ANY($2::bigint[])`,
          [first.projectId, column('storyId')],
        );
        if (gone.rowCount) throw new DomainError('NotFound', 'The story was deleted during the upload.');
        const reservation = await client.query<{ bytes: number }>(
          'DELETE FROM upload_reservations WHERE id = $1 AND account_id = $2 RETURNING bytes',
          [reservationId, first.accountId],
        );
        const reserved = reservation.rows[0]?.bytes;
        if (reserved === undefined) {
          throw new DomainError(
            'Unavailable',
            'The upload took too long and lost its storage reservation; try again.',
          );
        }
        const actual = attachments.reduce((sum, a) => sum + a.sizeBytes, 0);
        // The upload never streams more than it reserved, so usage only ever takes over reserved space.
        if (actual > reserved) throw new Error('an upload stored more bytes than it had reserved');
        await client.query(
          `UPDATE account_storage SET reserved_bytes = reserved_bytes - $2, used_bytes = used_bytes + $3
           WHERE account_id = $1`,
          [first.accountId, reserved, actual],
        );
        // One statement, so the rows appear together or not at all; ids follow the input order.
        const result = await insertOrConflict(() =>
          client.query<AttachmentRow>(
            `INSERT INTO attachments (project_id, story_id, file_name, content_type, size_bytes, token, object_key, created_by, account_id)
           SELECT t.project_id, t.story_id, t.file_name, t.content_type, t.size_bytes, t.token, t.object_key, t.created_by, t.account_id
           FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::bigint[], $9::bigint[])
                WITH ORDINALITY AS t(project_id, story_id, file_name, content_type, size_bytes, token, object_key, created_by, account_id, ord)
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
              column('accountId'),
            ],
          ),
        );
        const byToken = new Map(result.rows.map((row) => [row.token, toRecord(row)]));
        const records = attachments.map((a) => {
          const record = byToken.get(a.token);
          if (!record) throw new Error('attachment insert returned fewer rows than it was given');
          return record;
        });
        await enqueue(client, events(records));
        return records;
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

    async rename(projectId, storyId, attachmentId, fileName, expectedVersion, events) {
      return withTransaction(db, async (client) => {
        // The row locked first: the version compared is the one renamed (concurrent renames queue here and see
        // each other's), and the events get the attachment before and after (a same-name rename changes nothing).
        const found = await client.query<AttachmentRow>(
          `SELECT ${COLUMNS} FROM attachments WHERE project_id = $1 AND story_id = $2 AND id = $3 FOR UPDATE`,
          [projectId, storyId, attachmentId],
        );
        const row = found.rows[0];
        if (!row) return undefined;
        const before = toRecord(row);
        if (expectedVersion !== undefined)
          requireVersion('Attachment', attachmentId, before.version, expectedVersion);
        const result = await client.query<AttachmentRow>(
          `UPDATE attachments SET file_name = $4 WHERE project_id = $1 AND story_id = $2 AND id = $3
           RETURNING ${COLUMNS}`,
          [projectId, storyId, attachmentId, fileName],
        );
        const after = toRecord(result.rows[0] as AttachmentRow);
        await enqueue(client, events({ before, after }));
        return after;
      });
    },

    async delete(projectId, storyId, attachmentId, expectedVersion, events) {
      const deleted = await withTransaction(db, async (client) => {
        const result = await client.query<AttachmentRow>(
          freeing(
            `DELETE FROM attachments WHERE project_id = $1 AND story_id = $2 AND id = $3 AND ${atVersion('$4')}
             RETURNING ${COLUMNS}`,
            'SELECT * FROM deleted',
          ),
          [projectId, storyId, attachmentId, expectedVersion ?? null],
        );
        const row = result.rows[0];
        if (!row) return undefined;
        const record = toRecord(row);
        await enqueue(client, events(record));
        return record;
      });
      if (deleted) return deleted;
      if (expectedVersion !== undefined)
        await refuseOtherVersion(projectId, storyId, attachmentId, expectedVersion);
      return undefined;
    },

    async deleteScope(projectId, storyId) {
      return withTransaction(db, async (client) => {
        await lockProject(client, projectId, 'exclusive');
        if (storyId === undefined) {
          await client.query('INSERT INTO deleted_projects (project_id) VALUES ($1) ON CONFLICT DO NOTHING', [
            projectId,
          ]);
        } else {
          await client.query(
            'INSERT INTO deleted_stories (project_id, story_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
            [projectId, storyId],
          );
        }
        const result = await client.query<{ object_key: string }>(
          freeing(
            `DELETE FROM attachments WHERE project_id = $1 AND ($2::bigint IS NULL OR story_id = $2)
             RETURNING object_key, size_bytes, account_id`,
            'SELECT object_key FROM deleted',
          ),
          [projectId, storyId ?? null],
        );
        return result.rows.map((row) => row.object_key);
      });
    },

    async existingKeys(keys) {
      if (keys.length === 0) return new Set();
      const result = await db.query<{ object_key: string }>(
        'SELECT object_key FROM attachments WHERE object_key = ANY($1::text[])',
        [keys],
      );
      return new Set(result.rows.map((row) => row.object_key));
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
