import type { Queryable } from '@flowboard/pg-kit';
import type { OwnedStoriesReader } from '../application/ports';
import { compileStoryFilter } from './story-filter-sql';
import { COLUMNS as STORY_COLUMNS, toStoryRecord, type StoryRow } from './story-repository';

/** /me/stories: one statement across the caller's projects, on the pool (a read; no board is locked). */
export function ownedStoriesReader(db: Queryable): OwnedStoriesReader {
  return {
    async listOwned({ ownerId, projectIds, filter, offset, limit }) {
      if (projectIds.length === 0) return { stories: [], total: 0 };
      const params: unknown[] = [ownerId, projectIds];
      const where = filter ? ` AND ${compileStoryFilter(filter, params, [])}` : '';
      // stories_owner_idx (owner_id, project_id) WHERE owner_id IS NOT NULL.
      const from = `FROM stories s JOIN phases p ON p.id = s.phase_id
        WHERE s.owner_id = $1 AND s.project_id = ANY($2::bigint[])${where}`;
      params.push(limit, offset);
      // One statement keeps the page and the total on one snapshot.
      const result = await db.query<StoryRow & { total: string | number }>(
        `WITH total AS (SELECT count(*) AS total ${from})
         SELECT page.*, total.total FROM total LEFT JOIN LATERAL (
           SELECT ${STORY_COLUMNS} ${from}
           ORDER BY s.project_id, p.position, s.board_position
           LIMIT $${params.length - 1} OFFSET $${params.length}
         ) page ON true`,
        params,
      );
      const total = Number(result.rows[0]?.total ?? 0);
      return { stories: result.rows.filter((r) => r.id !== null).map(toStoryRecord), total };
    },

    async listOwnedById({ ownerId, projectIds, filter, afterId, afterProjectId, limit }) {
      if (projectIds.length === 0) return { stories: [], total: 0, more: false };
      const params: unknown[] = [ownerId, projectIds];
      const where = filter ? ` AND ${compileStoryFilter(filter, params, [])}` : '';
      const after = `($${params.length + 1}::bigint, $${params.length + 2}::bigint)`;
      // In (id, project id) order along stories_owner_id_idx (owner_id, id, project_id) (0014).
      const from = `FROM stories s JOIN phases p ON p.id = s.phase_id
        WHERE s.owner_id = $1 AND s.project_id = ANY($2::bigint[])${where}`;
      const result = await db.query<StoryRow & { total: string | number }>(
        `WITH total AS (SELECT count(*) AS total ${from})
         SELECT page.*, total.total FROM total LEFT JOIN LATERAL (
           SELECT ${STORY_COLUMNS} ${from} AND (s.id, s.project_id) > ${after}
           ORDER BY s.id, s.project_id LIMIT $${params.length + 3}
         ) page ON true
         ORDER BY page.id, page.project_id`,
        [...params, afterId, afterProjectId, limit + 1],
      );
      const total = Number(result.rows[0]?.total ?? 0);
      const rows = result.rows.filter((r) => r.id !== null);
      return { stories: rows.slice(0, limit).map(toStoryRecord), total, more: rows.length > limit };
    },
  };
}
