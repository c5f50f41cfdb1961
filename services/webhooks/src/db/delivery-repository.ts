import { withTransaction, type Pool, type PoolClient } from '@flowboard/pg-kit';
import type {
  AttemptRecord,
  ClaimedDelivery,
  DeliveryRecord,
  DeliveryStatus,
  DeliveryStore,
  StoredEvent,
} from '../application/ports';
import { open, type SealingKey } from '../domain/secret-box';
import { secretContext } from './webhook-repository';

interface DeliveryRow {
  id: number;
  webhook_id: number;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  waiting: boolean;
  attempts: number;
  next_attempt_at: Date | null;
  failure: string;
  created_at: Date;
}

interface AttemptRow {
  delivery_id: number;
  attempt: number;
  status: 'succeeded' | 'failed';
  response_status_code: number;
  latency_ms: number;
  error: string;
  attempted_at: Date;
}

interface ClaimRow {
  id: number;
  webhook_id: number;
  project_id: number;
  event_id: string;
  subject: string;
  attempts: number;
  lease_token: string;
  url: string;
  secret_sealed: Buffer;
  secret_key_id: string;
  body: string;
  elapsed_ms: number;
}

const DELIVERY_COLUMNS = `d.id, d.webhook_id, d.event_id, e.type AS event_type, d.status, d.waiting, d.attempts,
  d.next_attempt_at, d.failure, d.created_at`;

/** Logged for an attempt whose dispatcher stopped before it had a result (its lease ran out). */
export const INTERRUPTED =
  'no result: the dispatcher stopped during the attempt; the receiver may or may not have received it';

/** Failure text of a delivery that failed without retries because its webhook was no longer active. */
const NOT_ACTIVE = 'not retried: the webhook is no longer active';

/** Deliveries cancelled because another delivery of the webhook gave up and disabled it. */
const CANCELLED_DISABLED = 'cancelled: the webhook was disabled after another delivery gave up';

/** Webhooks of a project that take an event type ($1 project, $2 type). */
const SUBSCRIBED = `project_id = $1 AND active AND (cardinality(event_types) = 0 OR $2 = ANY(event_types))`;

/**
 * Per-subject order. Of a webhook's pending deliveries of one subject only the oldest is schedulable; the others
 * are `waiting`, and whichever finishes the head promotes the next. Both sides hold this transaction lock on
 * (webhook, subject): an insert then sees the head it must wait for, or the head's end, never neither (which would
 * leave a delivery waiting for nobody). Lock order everywhere: the webhook row, then these locks (by webhook id),
 * then delivery rows.
 */
const lockSubjects = (client: PoolClient, webhookIds: readonly number[], subject: string) =>
  client.query(
    `SELECT pg_advisory_xact_lock(hashtextextended('webhooks.subject:' || w || ':' || $2, 0))
     FROM unnest($1::bigint[]) AS w ORDER BY w`,
    [[...webhookIds].sort((a, b) => a - b), subject],
  );

/** New deliveries of one event ($2) and subject ($3) to webhooks $1, waiting behind what the subject has pending. */
const INSERT_DELIVERIES = `
  INSERT INTO deliveries (webhook_id, event_id, subject, next_attempt_at, waiting)
  SELECT w, $2, $3, now(),
         EXISTS (SELECT 1 FROM deliveries p WHERE p.webhook_id = w AND p.subject = $3 AND p.status = 'pending')
  FROM unnest($1::bigint[]) AS w ORDER BY w
  RETURNING id`;

export function deliveryRepository(db: Pool, sealingKey: SealingKey): DeliveryStore {
  /** Deliveries with their attempts, newest attempt first. */
  async function withAttempts(rows: DeliveryRow[]): Promise<DeliveryRecord[]> {
    if (rows.length === 0) return [];
    const attempts = await db.query<AttemptRow>(
      `SELECT delivery_id, attempt, status, response_status_code, latency_ms, error, attempted_at
       FROM delivery_attempts WHERE delivery_id = ANY($1::bigint[]) ORDER BY delivery_id, attempt DESC`,
      [rows.map((row) => row.id)],
    );
    const byDelivery = new Map<number, AttemptRecord[]>();
    for (const a of attempts.rows) {
      const list = byDelivery.get(a.delivery_id) ?? [];
      list.push({
        attempt: a.attempt,
        status: a.status,
        statusCode: a.response_status_code,
        latencyMs: a.latency_ms,
        error: a.error,
        attemptedAt: a.attempted_at,
      });
      byDelivery.set(a.delivery_id, list);
    }
    return rows.map((row) => ({
      id: row.id,
      webhookId: row.webhook_id,
      eventId: row.event_id,
      eventType: row.event_type,
      status: row.status,
      waiting: row.waiting,
      attempts: row.attempts,
      nextAttemptAt: row.next_attempt_at,
      failure: row.failure,
      createdAt: row.created_at,
      attemptLog: byDelivery.get(row.id) ?? [],
    }));
  }

  const insertEvent = (client: PoolClient, event: StoredEvent) =>
    client.query(
      `INSERT INTO events (id, project_id, type, subject, occurred_at, body) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO NOTHING`,
      [event.id, event.projectId, event.type, event.subject, event.occurredAt, event.body],
    );

  const openSecret = (row: ClaimRow): string | undefined => {
    if (row.secret_key_id !== sealingKey.id) return undefined;
    try {
      return open(sealingKey, row.secret_sealed, secretContext(row.webhook_id));
    } catch {
      return undefined;
    }
  };

  return {
    async projectsWithWebhooks(projectIds) {
      // Named: prepared once per connection, as every batch of changes asks it (docs/benchmarks.md).
      const result = await db.query<{ project_id: string }>({
        name: 'webhooks-projects-with-webhooks',
        text: 'SELECT DISTINCT project_id FROM webhooks WHERE project_id = ANY($1::bigint[]) AND active',
        values: [projectIds],
      });
      return result.rows.map((row) => Number(row.project_id));
    },

    async ingestionPlan(eventId, projectId, type) {
      const result = await db.query<{ stored: boolean; subscribers: number }>(
        `SELECT EXISTS (SELECT 1 FROM events WHERE id = $3) AS stored,
                (SELECT count(*)::int FROM webhooks WHERE ${SUBSCRIBED}) AS subscribers`,
        [projectId, type, eventId],
      );
      return result.rows[0]!;
    },

    ingest(event) {
      return withTransaction(db, async (client) => {
        // FOR SHARE: a concurrent deactivation waits for this transaction, then cancels what it adds.
        const webhooks = await client.query<{ id: number }>(
          `SELECT id FROM webhooks WHERE ${SUBSCRIBED} ORDER BY id FOR SHARE`,
          [event.projectId, event.type],
        );
        if (webhooks.rowCount === 0) return 0;
        const inserted = await insertEvent(client, event);
        if (inserted.rowCount === 0) return 0; // a redelivered message: everything exists already
        const ids = webhooks.rows.map((row) => row.id);
        await lockSubjects(client, ids, event.subject);
        const deliveries = await client.query(INSERT_DELIVERIES, [ids, event.id, event.subject]);
        return deliveries.rowCount ?? 0;
      });
    },

    enqueueFor(projectId, webhookId, event) {
      return withTransaction(db, async (client) => {
        const webhook = await client.query<{ active: boolean }>(
          'SELECT active FROM webhooks WHERE project_id = $1 AND id = $2 FOR SHARE',
          [projectId, webhookId],
        );
        const row = webhook.rows[0];
        if (!row) return undefined;
        if (!row.active) return 'inactive' as const;
        await insertEvent(client, event);
        await lockSubjects(client, [webhookId], event.subject);
        const delivery = await client.query<{ id: number }>(INSERT_DELIVERIES, [
          [webhookId],
          event.id,
          event.subject,
        ]);
        return delivery.rows[0]!.id;
      });
    },

    async list(webhookId, offset, limit) {
      const [count, page] = await Promise.all([
        db.query<{ n: number }>('SELECT count(*)::int AS n FROM deliveries WHERE webhook_id = $1', [
          webhookId,
        ]),
        db.query<DeliveryRow>(
          `SELECT ${DELIVERY_COLUMNS} FROM deliveries d JOIN events e ON e.id = d.event_id
           WHERE d.webhook_id = $1 ORDER BY d.id DESC OFFSET $2 LIMIT $3`,
          [webhookId, offset, limit],
        ),
      ]);
      return { deliveries: await withAttempts(page.rows), total: count.rows[0]?.n ?? 0 };
    },

    async listAfter(webhookId, afterId, limit) {
      // One statement, so the page and its total come from one snapshot (the count row stays when the page is
      // empty); deliveries_webhook_idx (webhook_id, id) serves both. One row beyond the page tells whether more
      // follow.
      const result = await db.query<DeliveryRow & { total: number }>(
        `SELECT page.*, total.n AS total
         FROM (SELECT count(*)::int AS n FROM deliveries WHERE webhook_id = $1) total
         LEFT JOIN LATERAL (
           SELECT ${DELIVERY_COLUMNS} FROM deliveries d JOIN events e ON e.id = d.event_id
           WHERE d.webhook_id = $1 AND d.id > $2::bigint ORDER BY d.id LIMIT $3
         ) page ON true`,
        [webhookId, afterId, limit + 1],
      );
      const rows = result.rows.filter((row) => row.id !== null);
      return {
        deliveries: await withAttempts(rows.slice(0, limit)),
        total: result.rows[0]?.total ?? 0,
        more: rows.length > limit,
      };
    },

    async find(webhookId, deliveryId) {
      const result = await db.query<DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM deliveries d JOIN events e ON e.id = d.event_id
         WHERE d.webhook_id = $1 AND d.id = $2`,
        [webhookId, deliveryId],
      );
      return (await withAttempts(result.rows))[0];
    },

    redeliver(webhookId, deliveryId) {
      return withTransaction(db, async (client) => {
        const found = await client.query<{
          active: boolean;
          status: DeliveryStatus;
          event_id: string;
          subject: string;
        }>(
          `SELECT w.active, d.status, d.event_id, d.subject FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
           WHERE d.webhook_id = $1 AND d.id = $2 FOR SHARE OF w`,
          [webhookId, deliveryId],
        );
        const row = found.rows[0];
        if (!row) return undefined;
        if (!row.active) return 'inactive' as const;
        if (row.status === 'pending') return 'pending' as const;
        // A new, later id: it is ordered after whatever the subject has pending now.
        await lockSubjects(client, [webhookId], row.subject);
        const created = await client.query<{ id: number }>(INSERT_DELIVERIES, [
          [webhookId],
          row.event_id,
          row.subject,
        ]);
        // Read in this transaction: the delivery as queued, which no dispatcher can claim before the commit (read
        // after it, the answer could already show the first attempt). It has no attempts to log yet.
        const queued = await client.query<DeliveryRow>(
          `SELECT ${DELIVERY_COLUMNS} FROM deliveries d JOIN events e ON e.id = d.event_id
           WHERE d.webhook_id = $1 AND d.id = $2`,
          [webhookId, created.rows[0]!.id],
        );
        return (await withAttempts(queued.rows))[0]!;
      });
    },

    async claimDue(limit, leaseMs) {
      // One statement: pick (row locks, SKIP LOCKED: replicas claiming at once take different rows), lease, and
      // log the attempt a dead dispatcher left without a result. Waiting deliveries are not candidates (per-subject
      // order), so the partial index yields due heads only, whatever the backlog behind them.
      const result = await db.query<ClaimRow>(
        `WITH due AS (
           SELECT d.id, d.lease_token AS previous_token, d.attempts AS previous_attempts
           FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.active
           WHERE d.status = 'pending' AND NOT d.waiting AND d.next_attempt_at <= now()
           ORDER BY d.next_attempt_at, d.id
           LIMIT $1
           FOR UPDATE OF d SKIP LOCKED
         ),
         claimed AS (
           UPDATE deliveries d
           SET attempts = d.attempts + 1, lease_token = gen_random_uuid(),
               next_attempt_at = now() + $2::bigint * interval '1 millisecond',
               first_attempt_at = coalesce(d.first_attempt_at, now())
           FROM due WHERE d.id = due.id
           RETURNING d.id, d.webhook_id, d.event_id, d.subject, d.attempts, d.lease_token, d.first_attempt_at,
                     due.previous_token, due.previous_attempts
         ),
         interrupted AS (
           INSERT INTO delivery_attempts (delivery_id, attempt, status, error, attempted_at)
           SELECT id, previous_attempts, 'failed', $3, now() FROM claimed
           WHERE previous_token IS NOT NULL AND previous_attempts > 0
           ON CONFLICT (delivery_id, attempt) DO NOTHING
         )
         SELECT c.id, c.webhook_id, w.project_id, c.event_id, c.subject, c.attempts, c.lease_token, w.url,
                w.secret_sealed, w.secret_key_id, e.body,
                (extract(epoch FROM now() - c.first_attempt_at) * 1000)::bigint AS elapsed_ms
         FROM claimed c JOIN webhooks w ON w.id = c.webhook_id JOIN events e ON e.id = c.event_id
         ORDER BY c.id`,
        [limit, leaseMs, INTERRUPTED],
      );
      return result.rows.map((row): ClaimedDelivery => ({
        id: row.id,
        webhookId: row.webhook_id,
        projectId: row.project_id,
        eventId: row.event_id,
        subject: row.subject,
        attempt: row.attempts,
        leaseToken: row.lease_token,
        url: row.url,
        secret: openSecret(row),
        body: row.body,
        elapsedMs: row.elapsed_ms,
      }));
    },

    finish(claim, result, outcome) {
      return withTransaction(db, async (client) => {
        // The webhook's row first (lockSubjects): shared, or exclusive when giving up writes the webhook too. A
        // deactivation (which cancels every pending delivery) thus runs entirely before or after this.
        await client.query(
          `SELECT 1 FROM webhooks WHERE id = $1 ${outcome.kind === 'give-up' ? 'FOR NO KEY UPDATE' : 'FOR SHARE'}`,
          [claim.webhookId],
        );
        await lockSubjects(client, [claim.webhookId], claim.subject);
        const current = await client.query<{
          status: DeliveryStatus;
          lease_token: string | null;
          active: boolean;
        }>(
          `SELECT d.status, d.lease_token, w.active FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
           WHERE d.id = $1 FOR NO KEY UPDATE OF d`,
          [claim.id],
        );
        const row = current.rows[0];
        if (!row) return; // the webhook was deleted meanwhile
        // The attempt happened whoever holds the lease now; its result replaces an "interrupted" placeholder.
        await client.query(
          `INSERT INTO delivery_attempts
             (delivery_id, attempt, status, response_status_code, latency_ms, error, attempted_at)
           VALUES ($1, $2, $3, $4, $5, $6, now())
           ON CONFLICT (delivery_id, attempt) DO UPDATE SET status = excluded.status,
             response_status_code = excluded.response_status_code, latency_ms = excluded.latency_ms,
             error = excluded.error`,
          [
            claim.id,
            claim.attempt,
            result.ok ? 'succeeded' : 'failed',
            result.statusCode,
            Math.min(result.latencyMs, 2_147_483_647),
            result.error,
          ],
        );
        if (row.lease_token !== claim.leaseToken) return; // another claim took over after our lease ran out

        // The delivery leaves the subject's queue: the next one (the oldest still pending) may go now.
        const end = async (status: DeliveryStatus, failure: string) => {
          await client.query(
            `UPDATE deliveries SET status = $2, failure = $3, next_attempt_at = NULL, lease_token = NULL,
               finished_at = now()
             WHERE id = $1`,
            [claim.id, status, failure],
          );
          await client.query(
            `UPDATE deliveries SET waiting = false, next_attempt_at = now()
             WHERE id = (SELECT min(id) FROM deliveries WHERE webhook_id = $1 AND subject = $2 AND status = 'pending')
               AND waiting`,
            [claim.webhookId, claim.subject],
          );
        };
        if (outcome.kind === 'succeeded') {
          await end('succeeded', '');
        } else if (row.status !== 'pending') {
          // Cancelled during the attempt (deactivation): it stays failed.
          await client.query('UPDATE deliveries SET lease_token = NULL WHERE id = $1', [claim.id]);
        } else if (!row.active) {
          await end('failed', NOT_ACTIVE);
        } else if (outcome.kind === 'retry') {
          await client.query(
            `UPDATE deliveries SET next_attempt_at = now() + $2::bigint * interval '1 millisecond', lease_token = NULL
             WHERE id = $1`,
            [claim.id, outcome.inMs],
          );
        } else {
          await end('failed', outcome.failure);
          await client.query(
            `UPDATE webhooks SET active = false, disabled_reason = $2, updated_at = now() WHERE id = $1 AND active`,
            [claim.webhookId, outcome.disabledReason],
          );
          await client.query(
            `UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, finished_at = now(), failure = $2
             WHERE webhook_id = $1 AND status = 'pending'`,
            [claim.webhookId, CANCELLED_DISABLED],
          );
        }
      });
    },

    async sweep(days) {
      let removed = 0;
      for (;;) {
        const result = await db.query(
          `DELETE FROM events WHERE id IN (
             SELECT e.id FROM events e
             WHERE e.received_at < now() - $1::int * interval '1 day'
               AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
             ORDER BY e.received_at LIMIT 1000)`,
          [days],
        );
        removed += result.rowCount ?? 0;
        if ((result.rowCount ?? 0) < 1000) return removed;
      }
    },
  };
}
