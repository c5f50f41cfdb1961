import type { Queryable } from '@flowboard/pg-kit';
import type { QuotaStore } from '../application/ports';

/**
 * The quota ledger in PostgreSQL. The limit check and the reservation are one conditional UPDATE of the
 * account's row (`used + reserved + n <= limit`): concurrent uploads queue on that row's lock and each re-checks
 * the condition against the row as the previous one left it, so together they can never pass the limit.
 */
export function quotaRepository(db: Queryable): QuotaStore {
  return {
    async reserve(accountId, limitBytes, bytes, ttlSeconds) {
      await db.query('INSERT INTO account_storage (account_id) VALUES ($1) ON CONFLICT DO NOTHING', [
        accountId,
      ]);
      const result = await db.query<{ id: number }>(
        `WITH account AS (
           UPDATE account_storage SET reserved_bytes = reserved_bytes + $3
           WHERE account_id = $1 AND used_bytes + reserved_bytes + $3 <= $2
           RETURNING account_id
         )
         INSERT INTO upload_reservations (account_id, bytes, expires_at)
         SELECT account_id, $3, now() + make_interval(secs => $4) FROM account
         RETURNING id`,
        [accountId, limitBytes, bytes, ttlSeconds],
      );
      return result.rows[0]?.id;
    },

    async grow(reservationId, limitBytes, bytes, ttlSeconds) {
      const result = await db.query<{ grown: boolean }>(
        `WITH reservation AS (
           SELECT account_id FROM upload_reservations WHERE id = $1 FOR UPDATE
         ),
         account AS (
           UPDATE account_storage a SET reserved_bytes = a.reserved_bytes + $3
           FROM reservation r
           WHERE a.account_id = r.account_id AND a.used_bytes + a.reserved_bytes + $3 <= $2
           RETURNING a.account_id
         ),
         grown AS (
           UPDATE upload_reservations SET bytes = bytes + $3, expires_at = now() + make_interval(secs => $4)
           WHERE id = $1 AND EXISTS (SELECT 1 FROM account)
           RETURNING id
         )
         SELECT EXISTS (SELECT 1 FROM grown) AS grown FROM reservation`,
        [reservationId, limitBytes, bytes, ttlSeconds],
      );
      const row = result.rows[0];
      if (!row) return 'gone';
      return row.grown ? 'ok' : 'over-limit';
    },

    async renew(reservationId, ttlSeconds) {
      const result = await db.query(
        'UPDATE upload_reservations SET expires_at = now() + make_interval(secs => $2) WHERE id = $1',
        [reservationId, ttlSeconds],
      );
      return result.rowCount === 1;
    },

    async release(reservationId) {
      await db.query(releasing('id = $1'), [reservationId]);
    },

    async releaseExpired() {
      const result = await db.query<{ released: number }>(releasing('expires_at < now()'), []);
      return result.rows[0]?.released ?? 0;
    },

    async usage(accountId) {
      const result = await db.query<{ used_bytes: number; reserved_bytes: number }>(
        'SELECT used_bytes, reserved_bytes FROM account_storage WHERE account_id = $1',
        [accountId],
      );
      const row = result.rows[0];
      return { usedBytes: row?.used_bytes ?? 0, reservedBytes: row?.reserved_bytes ?? 0 };
    },

    async totals() {
      const result = await db.query<{ used_bytes: number; reserved_bytes: number }>(
        `SELECT coalesce(sum(used_bytes), 0)::bigint AS used_bytes,
                coalesce(sum(reserved_bytes), 0)::bigint AS reserved_bytes FROM account_storage`,
        [],
      );
      const row = result.rows[0];
      return { usedBytes: row?.used_bytes ?? 0, reservedBytes: row?.reserved_bytes ?? 0 };
    },
  };
}

/** Ends the matching reservations and gives their bytes back to their accounts, in one statement. */
const releasing = (where: string) => `
  WITH released AS (DELETE FROM upload_reservations WHERE ${where} RETURNING account_id, bytes),
  freed AS (
    UPDATE account_storage a SET reserved_bytes = a.reserved_bytes - r.bytes
    FROM (SELECT account_id, sum(bytes)::bigint AS bytes FROM released GROUP BY account_id) r
    WHERE a.account_id = r.account_id
  )
  SELECT count(*)::int AS released FROM released`;
