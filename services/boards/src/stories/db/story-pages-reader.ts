import type { Queryable } from '@flowboard/pg-kit';
import type { StoryPagesReader, StoryRecord, StoryTombstone } from '../application/ports';
import { keysetPage } from '../../shared/db/keyset-page';
import { TOMBSTONE_RETENTION_DAYS } from '../domain/sync-position';
import { compileStoryFilter } from './story-filter-sql';
import { COLUMNS, toStoryRecord, type StoryRow } from './story-repository';

/** What a changes statement answers per row beside the story's columns (the page's rows: none when empty). */
type ChangeRow = Partial<StoryRow> & {
  position: string;
  system: string;
  pruned: boolean;
  future: boolean;
  total: string | number;
  page_id: number | null;
  deleted_at: Date | null;
};

/**
 * Cursor pages and updatedSince, each page one statement on the pool, so its rows, its total and its position come
 * from one snapshot. Keysets: a project's stories by the primary key (project_id, id); a phase's by
 * stories_phase_id_idx; a tag's by story_tags_tag_idx; changes by stories_changed_idx and
 * story_tombstones_changed_idx (migration 0013).
 */
export function storyPagesReader(db: Queryable): StoryPagesReader {
  return {
    async byId(projectId, query) {
      const params: unknown[] = [projectId];
      let where = query.filter ? ` AND ${compileStoryFilter(query.filter, params, query.users)}` : '';
      let from = 'stories s JOIN phases p ON p.id = s.phase_id';
      let key = 's.id';
      // Unfiltered, the count reads no story: the phases' stored counts (0006), or a tag's links.
      let count = 'SELECT coalesce(sum(w.story_count), 0) AS total FROM phases w WHERE w.project_id = $1';
      if (query.phaseId !== undefined) {
        params.push(query.phaseId);
        where += ` AND s.phase_id = $${params.length}`;
        count += ` AND w.id = $${params.length}`;
      }
      if (query.tagId !== undefined) {
        params.push(query.tagId);
        // Walked by the link's story id, so that the cursor bounds the scan of story_tags_tag_idx.
        from = `story_tags link JOIN stories s ON s.project_id = link.project_id AND s.id = link.story_id
                JOIN phases p ON p.id = s.phase_id`;
        where += ` AND link.tag_id = $${params.length}`;
        key = 'link.story_id';
        count = `SELECT count(*) AS total FROM story_tags WHERE project_id = $1 AND tag_id = $${params.length}`;
      }
      const matches = `FROM ${from} WHERE s.project_id = $1${where}`;
      // A filter is counted, as page/pageSize does.
      if (query.filter) count = `SELECT count(*) AS total ${matches}`;
      const { rows, total, more } = await keysetPage<StoryRow>(
        db,
        { count, rows: `SELECT ${COLUMNS} ${matches}`, key, params },
        query,
      );
      return { stories: rows.map(toStoryRecord), total, more };
    },

    async changes(projectId, { since, afterId, limit }) {
      // The position is this statement's snapshot (pg_current_snapshot() is the active one), so the next sync lists
      // exactly what these rows did not show. `pruned`: a tombstone `since` may not have seen is gone (the pruning
      // raised the horizon in its own transaction, so this snapshot sees both or neither). `future`: `since` names
      // transactions this database has not reached: another database's (restored into a new cluster).
      const context = since
        ? `SELECT pg_current_snapshot()::text AS position, (SELECT system_identifier::text FROM pg_control_system()) AS system,
             (SELECT pruned_xid FROM story_sync_horizon) >= pg_snapshot_xmin($2::pg_snapshot) AS pruned,
             pg_snapshot_xmax($2::pg_snapshot) > pg_snapshot_xmax(pg_current_snapshot()) AS future`
        : `SELECT pg_current_snapshot()::text AS position, (SELECT system_identifier::text FROM pg_control_system()) AS system,
             false AS pruned, false AS future`;
      // Changed: written by a transaction `since` did not see (in progress then, or later). The xmin bound is the
      // index range; the visibility test decides within it.
      const unseen = (column: string) =>
        `${column} >= pg_snapshot_xmin($2::pg_snapshot) AND NOT pg_visible_in_snapshot(${column}, $2::pg_snapshot)`;
      const params: unknown[] = since
        ? [projectId, since.snapshot, afterId, limit + 1]
        : [projectId, afterId, limit + 1];
      const [after, take] = since ? ['$3::bigint', '$4'] : ['$2::bigint', '$3'];
      const changes = since
        ? `changed AS (SELECT s.id FROM stories s WHERE s.project_id = $1 AND ${unseen('s.changed_xid')}),
           deleted AS (SELECT t.story_id AS id, t.deleted_at FROM story_tombstones t
                       WHERE t.project_id = $1 AND ${unseen('t.deleted_xid')}),
           total AS (SELECT (SELECT count(*) FROM changed) + (SELECT count(*) FROM deleted) AS total),
           page AS (SELECT id, deleted_at FROM (
                      (SELECT id, NULL::timestamptz AS deleted_at FROM changed WHERE id > ${after})
                      UNION ALL (SELECT id, deleted_at FROM deleted WHERE id > ${after})) u
                    ORDER BY id LIMIT ${take})`
        : // A first sync: every story (by the primary key), no tombstones: the client has nothing to delete.
          `changed AS (SELECT s.id FROM stories s WHERE s.project_id = $1 AND s.id > ${after} ORDER BY s.id LIMIT ${take}),
           total AS (SELECT coalesce(sum(w.story_count), 0) AS total FROM phases w WHERE w.project_id = $1),
           page AS (SELECT id, NULL::timestamptz AS deleted_at FROM changed)`;
      const result = await db.query<ChangeRow>(
        `WITH context AS MATERIALIZED (${context}), ${changes}
         SELECT context.*, total.total, page.id AS page_id, page.deleted_at, ${COLUMNS}
         FROM context CROSS JOIN total
              LEFT JOIN page ON true
              LEFT JOIN stories s ON s.project_id = $1 AND s.id = page.id AND page.deleted_at IS NULL
              LEFT JOIN phases p ON p.id = s.phase_id
         ORDER BY page.id`,
        params,
      );
      const first = result.rows[0];
      if (!first) throw new Error('story changes answered no row');
      if (since && first.system !== since.system)
        return {
          gone: 'This sync token is from another database (restored from a backup?): sync again from the start.',
        };
      if (first.future)
        return { gone: 'This sync token is newer than this database: sync again from the start.' };
      if (first.pruned)
        return {
          gone:
            `This sync token is older than the retained deletions (${TOMBSTONE_RETENTION_DAYS} days): sync again ` +
            'from the start (updatedSince=start).',
        };
      const rows = result.rows.filter((r) => r.page_id !== null);
      const stories: StoryRecord[] = [];
      const deleted: StoryTombstone[] = [];
      for (const row of rows.slice(0, limit)) {
        if (row.deleted_at) deleted.push({ id: Number(row.page_id), deletedAt: row.deleted_at });
        else if (row.id !== null && row.id !== undefined) stories.push(toStoryRecord(row as StoryRow));
      }
      return {
        stories,
        deleted,
        total: Number(first.total),
        more: rows.length > limit,
        position: { system: first.system, snapshot: first.position },
      };
    },
  };
}
