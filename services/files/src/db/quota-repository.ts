import { withTransaction, type Pool, type PoolClient } from '@flowboard/pg-kit';
import type { GrowResult, QuotaStore } from '../application/ports';
import { decideGrowth, type ReservationState } from '../domain/quota-growth';

/**
 * The quota ledger in PostgreSQL. Every change of an account's bytes goes through its `account_storage` row, under
 * that row's lock: a reservation is one conditional UPDATE (`used + reserved + n <= limit`), so concurrent uploads
 * queue on the lock and each re-checks the condition as the previous one left it, and together they can never
 * pass the limit. Growing a reservation reads the account's uploads in flight under the same lock and applies
 * domain/quota-growth's rule (grant, refuse, wait, or give the room back).
 */
export function quotaRepository(db: Pool): QuotaStore {
  return {
    async reserve(accountId, limitBytes, bytes, ttlSeconds) {
      await db.query('INSERT INTO account_storage (account_id) VALUES ($1) ON CONFLICT DO NOTHING', [
        accountId,
      ]);
      const result = await db.query<{ id: number }>(
        `WITH account AS (
           UPDATE account_storage SET reserved_bytes = reserved_bytes + $3
           WHERE account_id = $1 AND used_bytes + reserved_bytes + $3 <= $2
             -- Room is not taken from under uploads already waiting for it (first come, first served).
             AND ($3 = 0 OR NOT EXISTS (
               SELECT 1 FROM upload_reservations w
               WHERE w.account_id = $1 AND w.waiting_bytes IS NOT NULL AND w.expires_at > now()))
           RETURNING account_id
         )
         INSERT INTO upload_reservations (account_id, bytes, expires_at)
         SELECT account_id, $3, now() + make_interval(secs => $4) FROM account
         RETURNING id`,
        [accountId, limitBytes, bytes, ttlSeconds],
      );
      return result.rows[0]?.id;
    },

    async grow(reservationId, limitBytes, want, ttlSeconds) {
      // An upload already waiting asks again every few milliseconds: when nothing has changed for it, it is told
      // so without taking the account's lock, which the uploads that stream need.
      if (await stillWaiting(db, reservationId, limitBytes, want)) {
        return { outcome: 'wait', held: want.held };
      }
      return withTransaction(db, (client) => growIn(client, reservationId, limitBytes, want, ttlSeconds));
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

/**
 * Read without locks: is this upload registered as waiting for exactly what it asks, with `held` bytes, and would
 * it still only wait, taking nothing from anyone? Then nothing needs writing. Any doubt (expired uploads to
 * release, a change to act on) is for growIn, under the lock.
 */
async function stillWaiting(
  db: Pool,
  reservationId: number,
  limitBytes: number,
  want: { needed: number; wanted: number; held: number },
): Promise<boolean> {
  const result = await db.query<{
    id: number;
    bytes: number;
    waiting_bytes: number | null;
    live: boolean;
    used_bytes: number;
    reserved_bytes: number;
  }>(
    `SELECT r.id, r.bytes, r.waiting_bytes, r.expires_at > now() AS live, a.used_bytes, a.reserved_bytes
     FROM upload_reservations me
     JOIN account_storage a ON a.account_id = me.account_id
     JOIN upload_reservations r ON r.account_id = me.account_id
     WHERE me.id = $1`,
    [reservationId],
  );
  const self = result.rows.find((r) => r.id === reservationId);
  const least = want.needed - want.held;
  if (!self || self.bytes !== want.held || self.waiting_bytes !== least) return false;
  if (result.rows.some((r) => !r.live && r.id !== reservationId)) return false;
  const growth = decideGrowth(
    {
      limitBytes,
      usedBytes: self.used_bytes,
      reservedBytes: self.reserved_bytes,
      reservations: result.rows.map((r) => ({
        id: r.id,
        bytes: r.bytes,
        waitingFor: r.waiting_bytes ?? undefined,
      })),
    },
    reservationId,
    least,
    Math.max(least, want.wanted - want.held),
  );
  return growth.kind === 'wait' && growth.preempt.length === 0;
}

/**
 * One request for more room, in one transaction. Locks are taken in the order commits and releases take them
 * (the reservation's row, then the account's); the other uploads' rows only with SKIP LOCKED, never waiting,
 * so transactions never wait for each other in a circle. One whose row is locked is busy (committing, being
 * released, or asking in a transaction of its own that runs next): it keeps its room this time.
 */
async function growIn(
  client: PoolClient,
  reservationId: number,
  limitBytes: number,
  want: { needed: number; wanted: number; held: number },
  ttlSeconds: number,
): Promise<GrowResult> {
  const own = await client.query<{ account_id: number }>(
    'SELECT account_id FROM upload_reservations WHERE id = $1 FOR UPDATE',
    [reservationId],
  );
  const accountId = own.rows[0]?.account_id;
  if (accountId === undefined) return { outcome: 'gone' };
  await client.query('SELECT 1 FROM account_storage WHERE account_id = $1 FOR UPDATE', [accountId]);
  const locked = await client.query<{ id: number; expired: boolean }>(
    `SELECT id, expires_at < now() AS expired FROM upload_reservations
     WHERE account_id = $1 AND id <> $2 FOR UPDATE SKIP LOCKED`,
    [accountId, reservationId],
  );
  // Uploads whose process died hold room until they expire: give it back now rather than at the next sweep.
  const expired = locked.rows.filter((r) => r.expired).map((r) => r.id);
  if (expired.length > 0) await client.query(releasing('id = ANY($1::bigint[])'), [expired]);
  const free = new Set(locked.rows.map((r) => r.id));

  const account = await client.query<{ used_bytes: number; reserved_bytes: number }>(
    'SELECT used_bytes, reserved_bytes FROM account_storage WHERE account_id = $1',
    [accountId],
  );
  const live = await client.query<{ id: number; bytes: number; waiting_bytes: number | null }>(
    `SELECT id, bytes, waiting_bytes FROM upload_reservations
     WHERE account_id = $1 AND (expires_at > now() OR id = $2)`,
    [accountId, reservationId],
  );
  const row = account.rows[0];
  const reservations: ReservationState[] = live.rows.map((r) => ({
    id: r.id,
    bytes: r.bytes,
    waitingFor: r.waiting_bytes ?? undefined,
    busy: r.id !== reservationId && !free.has(r.id),
  }));
  const self = reservations.find((r) => r.id === reservationId);
  if (!row || !self) return { outcome: 'gone' };
  const least = want.needed - self.bytes;
  const expiry = 'expires_at = now() + make_interval(secs => $3)';
  if (least <= 0) {
    await client.query(`UPDATE upload_reservations SET waiting_bytes = NULL, ${expiry} WHERE id = $1`, [
      reservationId,
      null,
      ttlSeconds,
    ]);
    return { outcome: 'ok', held: self.bytes };
  }
  const growth = decideGrowth(
    { limitBytes, usedBytes: row.used_bytes, reservedBytes: row.reserved_bytes, reservations },
    reservationId,
    least,
    Math.max(least, want.wanted - self.bytes),
  );
  if (growth.kind === 'refuse') {
    // No longer in line: it is about to give everything back.
    await client.query('UPDATE upload_reservations SET waiting_bytes = NULL WHERE id = $1', [reservationId]);
    return { outcome: 'over-limit' };
  }

  // The preempted give their room back and wait for all they need, keeping their place in line.
  const preempted = reservations.filter((r) => growth.preempt.includes(r.id));
  for (const r of preempted) {
    await client.query('UPDATE upload_reservations SET bytes = 0, waiting_bytes = $2 WHERE id = $1', [
      r.id,
      r.bytes + (r.waitingFor ?? 0),
    ]);
  }
  const givenBack = preempted.reduce((sum, r) => sum + r.bytes, 0);
  const selfPreempted = growth.preempt.includes(reservationId);
  const granted = growth.kind === 'grant' ? growth.bytes : 0;
  await client.query(
    'UPDATE account_storage SET reserved_bytes = reserved_bytes + $2 WHERE account_id = $1',
    [accountId, granted - givenBack],
  );
  const held = (selfPreempted ? 0 : self.bytes) + granted;
  const waiting = growth.kind === 'grant' ? null : held === 0 ? want.needed : least;
  await client.query(
    `UPDATE upload_reservations SET bytes = $4, waiting_bytes = $2, ${expiry} WHERE id = $1`,
    [reservationId, waiting, ttlSeconds, held],
  );
  return { outcome: growth.kind === 'grant' ? 'ok' : 'wait', held };
}
