import type { Queryable } from '@flowboard/pg-kit';
import type { KeysetWindow } from '../application/list-window';

/** A list as a keyset page reads it. */
export interface KeysetList {
  /** A statement answering the number of items of the whole list, as `total`. */
  count: string;
  /** The list's rows, with an `id` column: a SELECT ending in its WHERE conditions (the page adds the cursor's). */
  rows: string;
  /** The column the list is walked by: unique within the list, with an index that holds it in order. */
  key: string;
  /** The parameters of `count` and `rows`. */
  params: readonly unknown[];
}

/**
 * A keyset page of a list (README "Sync: cursors and updatedSince") and the list's total in one statement, so both
 * come from one snapshot. It reads `limit` + 1 rows: the extra one is not answered, it only says that more follow.
 */
export async function keysetPage<Row extends { id: unknown }>(
  db: Queryable,
  list: KeysetList,
  window: KeysetWindow,
): Promise<{ rows: Row[]; total: number; more: boolean }> {
  const params = [...list.params, window.afterId, window.limit + 1];
  const result = await db.query<Row & { total: string | number }>(
    `SELECT page.*, total.total FROM (${list.count}) total LEFT JOIN LATERAL (
       ${list.rows} AND ${list.key} > $${params.length - 1}::bigint ORDER BY ${list.key} LIMIT $${params.length}
     ) page ON true`,
    params,
  );
  // An empty page is one row of NULLs beside the total.
  const rows = result.rows.filter((r) => r.id !== null);
  return {
    rows: rows.slice(0, window.limit),
    total: Number(result.rows[0]?.total ?? 0),
    more: rows.length > window.limit,
  };
}
