import { DomainError } from '@flowboard/service-kit';
import { isPgError, PG_FOREIGN_KEY_VIOLATION, PG_UNIQUE_VIOLATION, type Queryable } from '@flowboard/pg-kit';
import type { LockedStory, StoryRecord, StoryRepository, StoryWrite } from '../application/ports';
import type { StoryColor } from '../domain/color';
import type { StoryStatus } from '../domain/story-status';
import { compileStoryFilter } from './story-filter-sql';

export interface StoryRow {
  project_id: number;
  id: number;
  text: string;
  details: string;
  size: string;
  priority: string;
  color: StoryColor;
  status: StoryStatus;
  blocked_reason: string | null;
  phase_id: number;
  phase_name: string;
  board_position: number;
  creator_id: number;
  owner_id: number | null;
  deadline: Date | null;
  created_at: Date;
  version: number;
}

/** The story columns with its phase's name, over `stories s JOIN phases p` (owned-stories-reader's too). */
export const COLUMNS = `s.project_id, s.id, s.text, s.details, s.size, s.priority, s.color, s.status, s.blocked_reason,
  s.phase_id, p.name AS phase_name, s.board_position, s.creator_id, s.owner_id, s.deadline, s.created_at,
  s.version`;

export const toStoryRecord = (row: StoryRow): StoryRecord => ({
  projectId: row.project_id,
  id: row.id,
  text: row.text,
  details: row.details,
  size: row.size,
  priority: row.priority,
  color: row.color,
  status: row.status,
  blockedReason: row.blocked_reason,
  phase: { id: row.phase_id, name: row.phase_name },
  boardPosition: row.board_position,
  creatorId: row.creator_id,
  ownerId: row.owner_id,
  deadline: row.deadline,
  createdAt: row.created_at,
  version: row.version,
});

type LockedStoryRow = StoryRow & {
  phase_position: number;
  last_position: number;
  target_id: number | null;
  target_position: number | null;
};

/** A locked story's row; `target` only when a move was asked for. */
function toLockedStory(row: LockedStoryRow, moving: boolean): LockedStory {
  const target =
    row.target_id === null || row.target_position === null
      ? null
      : { id: row.target_id, position: row.target_position };
  return {
    story: toStoryRecord(row),
    phasePosition: row.phase_position,
    lastPosition: row.last_position,
    ...(moving ? { target } : {}),
  };
}

/** A story write's failure as the caller's error where it is one: a phase gone meanwhile, a position race. */
function updateError(err: unknown, phaseId?: number): unknown {
  if (isPgError(err, PG_FOREIGN_KEY_VIOLATION)) {
    const which = phaseId === undefined ? 'one of the phases named is not' : `no phase ${phaseId}`;
    return new DomainError('InvalidArgument', `Invalid phase: ${which} in this project.`, {
      problem: 'invalid-reference',
      cause: err,
    });
  }
  if (isPgError(err, PG_UNIQUE_VIOLATION)) {
    return new DomainError('Conflict', 'The board changed concurrently; try again.', { cause: err });
  }
  return err;
}

export function storyRepository(db: Queryable): StoryRepository {
  return {
    async insert(story) {
      try {
        // Named: prepared once per connection, as every create runs it. The position is found in the statement (a
        // backward scan of stories_board_order_key, one index entry read) rather than by a query of its own: one
        // round trip less under the board lock.
        const result = await db.query<StoryRow>({
          name: 'boards-story-insert',
          text: `WITH inserted AS (
             INSERT INTO stories (project_id, id, text, details, size, priority, color, status, phase_id,
                                  board_position, creator_id, owner_id, deadline)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, coalesce(max(board_position), 0) + 1, $10, $11, $12
             FROM stories WHERE project_id = $1 AND phase_id = $9
             RETURNING *
           )
           SELECT ${COLUMNS} FROM inserted s JOIN phases p ON p.id = s.phase_id`,
          values: [
            story.projectId,
            story.id,
            story.text,
            story.details,
            story.size,
            story.priority,
            story.color,
            story.status,
            story.phaseId,
            story.creatorId,
            story.ownerId,
            story.deadline,
          ],
        });
        const row = result.rows[0];
        if (!row) throw new Error('story insert returned no row');
        return toStoryRecord(row);
      } catch (err) {
        // The phase vanished between lookup and insert (a concurrent phase delete).
        throw updateError(err, story.phaseId);
      }
    },

    async find(projectId, storyId) {
      // Named: prepared once per connection, since every single-story read runs it (and skips the re-plan).
      const result = await db.query<StoryRow>({
        name: 'boards-story-find',
        text: `SELECT ${COLUMNS} FROM stories s JOIN phases p ON p.id = s.phase_id WHERE s.project_id = $1 AND s.id = $2`,
        values: [projectId, storyId],
      });
      const row = result.rows[0];
      return row ? toStoryRecord(row) : undefined;
    },

    async findMany(projectId, storyIds) {
      if (storyIds.length === 0) return [];
      // Named, like find: under load most single-story reads arrive here, gathered by the gateway.
      const result = await db.query<StoryRow>({
        name: 'boards-story-find-many',
        text: `SELECT ${COLUMNS} FROM stories s JOIN phases p ON p.id = s.phase_id
         WHERE s.project_id = $1 AND s.id = ANY($2::bigint[])`,
        values: [projectId, storyIds],
      });
      return result.rows.map(toStoryRecord);
    },

    async findForUpdate(projectId, storyId, movingTo) {
      // Named: prepared once per connection, as every update and move runs it. The phase a move goes to comes in
      // the same statement (one round trip less under the board lock); $3 is NULL when nothing moves.
      const result = await db.query<LockedStoryRow>({
        name: 'boards-story-find-for-update',
        text: `SELECT ${COLUMNS}, p.position AS phase_position,
                (SELECT max(position) FROM phases l WHERE l.project_id = s.project_id) AS last_position,
                t.id AS target_id, t.position AS target_position
         FROM stories s JOIN phases p ON p.id = s.phase_id
              LEFT JOIN phases t ON t.project_id = s.project_id AND t.id = $3::bigint
         WHERE s.project_id = $1 AND s.id = $2
         FOR UPDATE OF s`,
        values: [projectId, storyId, movingTo ?? null],
      });
      const row = result.rows[0];
      return row ? toLockedStory(row, movingTo !== undefined) : undefined;
    },

    async findManyForUpdate(projectId, wanted) {
      if (wanted.length === 0) return new Map();
      // One statement for a set-based write's stories, locked in id order (any two writers lock in the same order).
      const result = await db.query<LockedStoryRow & { moving: boolean }>({
        name: 'boards-story-find-many-for-update',
        text: `SELECT ${COLUMNS}, p.position AS phase_position,
                (SELECT max(position) FROM phases l WHERE l.project_id = $1) AS last_position,
                t.id AS target_id, t.position AS target_position, x.target IS NOT NULL AS moving
         FROM unnest($2::bigint[], $3::bigint[]) AS x(id, target)
              JOIN stories s ON s.project_id = $1 AND s.id = x.id
              JOIN phases p ON p.id = s.phase_id
              LEFT JOIN phases t ON t.project_id = $1 AND t.id = x.target
         ORDER BY s.id
         FOR UPDATE OF s`,
        values: [projectId, wanted.map((w) => w.storyId), wanted.map((w) => w.movingTo ?? null)],
      });
      return new Map(result.rows.map((row) => [row.id, toLockedStory(row, row.moving)]));
    },

    async list(projectId, query) {
      const params: unknown[] = [projectId];
      let where = query.filter ? ` AND ${compileStoryFilter(query.filter, params, query.users)}` : '';
      let phase = '';
      if (query.phaseId !== undefined) {
        params.push(query.phaseId);
        where += ` AND s.phase_id = $${params.length}`;
        phase = ` AND w.id = $${params.length}`;
      }
      if (query.ids !== undefined) {
        params.push(query.ids);
        where += ` AND s.id = ANY($${params.length}::bigint[])`;
      }
      // Board order is phase position, then board position. Sorting the whole board for each page grows with the
      // board (a 100,000-story board was a full sort and a full count per request), so the page is cut phase by
      // phase: count each phase's matches, then read only the phases the window touches, each in
      // stories_board_order_key order with its own OFFSET/LIMIT; only the page itself (<= limit rows) is sorted.
      // One statement, so the page and the total come from one snapshot.
      params.push(query.limit, query.offset);
      const limit = `$${params.length - 1}::bigint`;
      const offset = `$${params.length}::bigint`;
      const matches = `FROM stories s JOIN phases p ON p.id = s.phase_id
        WHERE s.project_id = $1 AND s.phase_id = w.id${where}`;
      // Without a filter each phase's count is stored (phases.story_count, kept by triggers); else counted.
      const unfiltered = query.filter === undefined && query.ids === undefined;
      const count = unfiltered ? 'w.story_count::bigint' : `(SELECT count(*) ${matches})`;
      // Unfiltered, the phase's window is picked by id alone, an index-only scan of the board-order key (migration
      // 0007), so a deep OFFSET skips index entries rather than fetching every skipped story; only the page's own
      // rows are read. (A phaseId needs no condition here: `counts` already holds that phase alone.) A filter needs
      // the story's columns to decide, so filtered windows read the rows directly.
      const window = unfiltered
        ? `SELECT ${COLUMNS} FROM (
             SELECT k.id FROM stories k WHERE k.project_id = $1 AND k.phase_id = w.id
             ORDER BY k.board_position
             OFFSET greatest(0, ${offset} - w.before) LIMIT ${offset} + ${limit} - greatest(w.before, ${offset})
           ) picked JOIN stories s ON s.project_id = $1 AND s.id = picked.id JOIN phases p ON p.id = s.phase_id`
        : `SELECT ${COLUMNS} ${matches}
             ORDER BY s.board_position
             OFFSET greatest(0, ${offset} - w.before) LIMIT ${offset} + ${limit} - greatest(w.before, ${offset})`;
      const result = await db.query<StoryRow & { total: string | number }>({
        // Unfiltered pages (the common case) always have the same text: prepared once per connection, they run
        // on PostgreSQL's cached generic plan instead of being planned again for every page (planning cost
        // more than running the query). Filtered texts vary with the filter and are planned each time.
        name: unfiltered ? `boards-story-page${query.phaseId === undefined ? '' : '-in-phase'}` : undefined,
        text: `WITH counts AS MATERIALIZED (
           SELECT w.id, w.position, ${count} AS n FROM phases w WHERE w.project_id = $1${phase}
         ), windows AS (
           SELECT id, position, n, (coalesce(sum(n) OVER (ORDER BY position) - n, 0))::bigint AS before FROM counts
         ), total AS (SELECT coalesce(sum(n), 0)::bigint AS total FROM counts)
         SELECT page.*, total.total FROM total LEFT JOIN LATERAL (
           SELECT x.* FROM windows w CROSS JOIN LATERAL (${window}) x
           WHERE w.before < ${offset} + ${limit} AND w.before + w.n > ${offset}
           ORDER BY w.position, x.board_position
         ) page ON true`,
        values: params,
      });
      const total = Number(result.rows[0]?.total ?? 0);
      const stories = result.rows.filter((r) => r.id !== null).map(toStoryRecord);
      return { stories, total };
    },

    async update(projectId, storyId, write) {
      try {
        // Named: prepared once per connection, as every update and move runs it. A NULL position ('bottom') is
        // found in the statement, below the new phase's last story: one round trip less under the board lock.
        const result = await db.query<StoryRow>({
          name: 'boards-story-update',
          text: `WITH updated AS (
             UPDATE stories SET text = $3, details = $4, size = $5, priority = $6, color = $7, status = $8,
                    blocked_reason = $9, phase_id = $10,
                    board_position = coalesce($11::bigint, (
                      SELECT coalesce(max(b.board_position), 0) + 1 FROM stories b
                      WHERE b.project_id = $1 AND b.phase_id = $10)),
                    owner_id = $12, deadline = $13, updated_at = now()
             WHERE project_id = $1 AND id = $2
             RETURNING *
           )
           SELECT ${COLUMNS} FROM updated s JOIN phases p ON p.id = s.phase_id`,
          values: [
            projectId,
            storyId,
            write.text,
            write.details,
            write.size,
            write.priority,
            write.color,
            write.status,
            write.blockedReason,
            write.phaseId,
            write.boardPosition === 'bottom' ? null : write.boardPosition,
            write.ownerId,
            write.deadline,
          ],
        });
        const row = result.rows[0];
        if (!row) throw new DomainError('NotFound', 'Story not found');
        return toStoryRecord(row);
      } catch (err) {
        throw updateError(err, write.phaseId);
      }
    },

    async updateMany(projectId, writes) {
      if (writes.length === 0) return [];
      const column = <T>(pick: (write: StoryWrite) => T) => writes.map(({ write }) => pick(write));
      try {
        // One statement for a set-based write's stories. A 'bottom' (NULL) position is below the phase's last story
        // before the statement, then one further down per story going there, in the order given.
        const result = await db.query<StoryRow>({
          name: 'boards-story-update-many',
          text: `WITH w AS (
             SELECT * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                                  $8::text[], $9::text[], $10::bigint[], $11::bigint[], $12::bigint[],
                                  $13::timestamptz[]) WITH ORDINALITY
               AS w(id, text, details, size, priority, color, status, blocked_reason, phase_id, board_position,
                    owner_id, deadline, ord)
           ), bottoms AS (
             SELECT w.id, last.position + row_number() OVER (PARTITION BY w.phase_id ORDER BY w.ord) AS position
             FROM w CROSS JOIN LATERAL (
               SELECT coalesce(max(b.board_position), 0) AS position FROM stories b
               WHERE b.project_id = $1 AND b.phase_id = w.phase_id) last
             WHERE w.board_position IS NULL
           ), updated AS (
             UPDATE stories s SET text = w.text, details = w.details, size = w.size, priority = w.priority,
                    color = w.color, status = w.status, blocked_reason = w.blocked_reason, phase_id = w.phase_id,
                    board_position = coalesce(w.board_position, bottoms.position),
                    owner_id = w.owner_id, deadline = w.deadline, updated_at = now()
             FROM w LEFT JOIN bottoms ON bottoms.id = w.id
             WHERE s.project_id = $1 AND s.id = w.id
             RETURNING s.*
           )
           SELECT ${COLUMNS} FROM updated s JOIN phases p ON p.id = s.phase_id`,
          values: [
            projectId,
            writes.map((w) => w.storyId),
            column((w) => w.text),
            column((w) => w.details),
            column((w) => w.size),
            column((w) => w.priority),
            column((w) => w.color),
            column((w) => w.status),
            column((w) => w.blockedReason),
            column((w) => w.phaseId),
            column((w) => (w.boardPosition === 'bottom' ? null : w.boardPosition)),
            column((w) => w.ownerId),
            column((w) => w.deadline),
          ],
        });
        const updated = new Map(result.rows.map((row) => [row.id, toStoryRecord(row)]));
        return writes.map(({ storyId }) => {
          const story = updated.get(storyId);
          if (!story) throw new DomainError('NotFound', 'Story not found');
          return story;
        });
      } catch (err) {
        throw updateError(err);
      }
    },

    async delete(projectId, storyId) {
      // The deleted row with its phase's name, in the DELETE's statement (the phase is not deleted).
      const result = await db.query<StoryRow>(
        `WITH deleted AS (DELETE FROM stories WHERE project_id = $1 AND id = $2 RETURNING *)
         SELECT ${COLUMNS} FROM deleted s JOIN phases p ON p.id = s.phase_id`,
        [projectId, storyId],
      );
      const row = result.rows[0];
      return row ? toStoryRecord(row) : undefined;
    },

    async matchingIds(projectId, query) {
      const params: unknown[] = [projectId];
      const where = query.filter ? ` AND ${compileStoryFilter(query.filter, params, query.users)}` : '';
      const result = await db.query<{ id: number }>(
        `SELECT s.id FROM stories s JOIN phases p ON p.id = s.phase_id
         WHERE s.project_id = $1${where}
         ORDER BY p.position, s.board_position`,
        params,
      );
      return result.rows.map((r) => r.id);
    },

    async idsInPhase(projectId, phaseId) {
      const result = await db.query<{ id: number }>(
        'SELECT id FROM stories WHERE project_id = $1 AND phase_id = $2 ORDER BY board_position',
        [projectId, phaseId],
      );
      return result.rows.map((r) => r.id);
    },

    async reorderInPhase(projectId, phaseId, storyIds) {
      // stories_board_order_key is DEFERRABLE: the whole phase is renumbered in one statement.
      await db.query('SET CONSTRAINTS stories_board_order_key DEFERRED');
      await db.query(
        `UPDATE stories s SET board_position = t.ord, updated_at = now()
         FROM unnest($3::bigint[]) WITH ORDINALITY AS t(id, ord)
         WHERE s.project_id = $1 AND s.phase_id = $2 AND s.id = t.id AND s.board_position <> t.ord`,
        [projectId, phaseId, storyIds],
      );
    },
  };
}
