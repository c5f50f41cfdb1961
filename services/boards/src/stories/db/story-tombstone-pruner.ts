import type { Queryable } from '@flowboard/pg-kit';

/** Tombstones pruned per statement: short transactions, whatever the backlog. */
const BATCH = 5_000;

/**
 * Deletes the tombstones older than the retention, and raises the sync horizon (story_sync_horizon) to the newest
 * deletion it pruned in the same statement, so a reader sees both or neither: a token that may not have seen a
 * pruned deletion is then refused (410) instead of silently missing it. Safe on every replica at once (the
 * horizon's row lock orders them; greatest() never lowers it). Returns how many it pruned.
 */
export async function pruneStoryTombstones(db: Queryable, retentionDays: number): Promise<number> {
  let pruned = 0;
  for (;;) {
    const result = await db.query<{ n: string | number }>(
      `WITH pruned AS (
         DELETE FROM story_tombstones WHERE ctid = ANY(ARRAY(
           SELECT ctid FROM story_tombstones WHERE deleted_at < now() - make_interval(days => $1) LIMIT $2))
         RETURNING deleted_xid
       ), raised AS (
         UPDATE story_sync_horizon SET pruned_xid = greatest(pruned_xid, (SELECT max(deleted_xid) FROM pruned))
         WHERE EXISTS (SELECT 1 FROM pruned)
       )
       SELECT count(*) AS n FROM pruned`,
      [retentionDays, BATCH],
    );
    const n = Number(result.rows[0]?.n ?? 0);
    pruned += n;
    if (n < BATCH) return pruned;
  }
}
