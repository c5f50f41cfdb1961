import { withTransaction, type Pool } from '@flowboard/pg-kit';
import { DomainError } from '@flowboard/service-kit';
import type { WebhookRecord, WebhookStore } from '../application/ports';
import { seal, type SealingKey } from '../domain/secret-box';

interface WebhookRow {
  id: number;
  project_id: number;
  url: string;
  event_types: string[];
  active: boolean;
  description: string;
  disabled_reason: string;
  created_at: Date;
  updated_at: Date;
}

// Never the secret: it is read only by the dispatcher's claim (delivery-repository.ts).
const COLUMNS =
  'id, project_id, url, event_types, active, description, disabled_reason, created_at, updated_at';

/** What a sealed secret is bound to: a value copied to another row does not open there. */
export const secretContext = (webhookId: number): string => `webhooks.secret:${webhookId}`;

/** Failure text of deliveries cancelled because their webhook was deactivated. */
export const CANCELLED_DEACTIVATED = 'cancelled: the webhook was deactivated';

const toRecord = (row: WebhookRow): WebhookRecord => ({
  id: row.id,
  projectId: row.project_id,
  url: row.url,
  eventTypes: row.event_types,
  active: row.active,
  description: row.description,
  disabledReason: row.disabled_reason,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/**
 * Lock order, kept by every writer so none can deadlock: the webhook's row, then its deliveries' rows. Ingestion
 * and enqueues hold the webhook row FOR SHARE while they add deliveries, so a deactivation (FOR NO KEY UPDATE)
 * either waits for them and then cancels what they added, or goes first and they see the webhook inactive.
 */
export function webhookRepository(db: Pool, sealingKey: SealingKey): WebhookStore {
  return {
    create(webhook, maxPerProject) {
      return withTransaction(db, async (client) => {
        // Serialises creates per project, so the limit holds under concurrent creates (hashed: a collision only
        // serialises two projects' creates for a moment).
        await client.query(
          `SELECT pg_advisory_xact_lock(hashtextextended('webhooks.project:' || $1::text, 0))`,
          [webhook.projectId],
        );
        const count = await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM webhooks WHERE project_id = $1',
          [webhook.projectId],
        );
        if ((count.rows[0]?.n ?? 0) >= maxPerProject) {
          throw new DomainError('FailedPrecondition', `A project has at most ${maxPerProject} webhooks.`);
        }
        // The id first: the sealed secret is bound to it.
        const next = await client.query<{ id: number }>(
          `SELECT nextval(pg_get_serial_sequence('webhooks', 'id')) AS id`,
        );
        const id = next.rows[0]!.id;
        const result = await client.query<WebhookRow>(
          `INSERT INTO webhooks (id, project_id, url, event_types, active, description, secret_sealed, secret_key_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           RETURNING ${COLUMNS}`,
          [
            id,
            webhook.projectId,
            webhook.url,
            webhook.eventTypes,
            webhook.active,
            webhook.description,
            seal(sealingKey, webhook.secret, secretContext(id)),
            sealingKey.id,
          ],
        );
        return toRecord(result.rows[0]!);
      });
    },

    async list(projectId) {
      const result = await db.query<WebhookRow>(
        `SELECT ${COLUMNS} FROM webhooks WHERE project_id = $1 ORDER BY id`,
        [projectId],
      );
      return result.rows.map(toRecord);
    },

    async find(projectId, webhookId) {
      const result = await db.query<WebhookRow>(
        `SELECT ${COLUMNS} FROM webhooks WHERE project_id = $1 AND id = $2`,
        [projectId, webhookId],
      );
      const row = result.rows[0];
      return row ? toRecord(row) : undefined;
    },

    update(projectId, webhookId, changes) {
      return withTransaction(db, async (client) => {
        const current = await client.query<{ active: boolean }>(
          'SELECT active FROM webhooks WHERE project_id = $1 AND id = $2 FOR NO KEY UPDATE',
          [projectId, webhookId],
        );
        const before = current.rows[0];
        if (!before) return undefined;
        const result = await client.query<WebhookRow>(
          `UPDATE webhooks SET
             url = coalesce($3, url),
             event_types = coalesce($4, event_types),
             active = coalesce($5, active),
             description = coalesce($6, description),
             -- Re-activation clears why it was disabled.
             disabled_reason = CASE WHEN $5 AND NOT active THEN '' ELSE disabled_reason END,
             updated_at = now()
           WHERE id = $2 AND project_id = $1
           RETURNING ${COLUMNS}`,
          [
            projectId,
            webhookId,
            changes.url ?? null,
            changes.eventTypes ?? null,
            changes.active ?? null,
            changes.description ?? null,
          ],
        );
        if (before.active && changes.active === false) {
          // An inactive webhook sends nothing: what was waiting fails, and can be redelivered after re-activation.
          await client.query(
            `UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, finished_at = now(), failure = $2
             WHERE webhook_id = $1 AND status = 'pending'`,
            [webhookId, CANCELLED_DEACTIVATED],
          );
        }
        return toRecord(result.rows[0]!);
      });
    },

    async delete(projectId, webhookId) {
      const result = await db.query('DELETE FROM webhooks WHERE project_id = $1 AND id = $2', [
        projectId,
        webhookId,
      ]);
      return (result.rowCount ?? 0) > 0;
    },

    deleteProject(projectId) {
      return withTransaction(db, async (client) => {
        const removed = await client.query('DELETE FROM webhooks WHERE project_id = $1', [projectId]);
        await client.query('DELETE FROM events WHERE project_id = $1', [projectId]);
        return removed.rowCount ?? 0;
      });
    },
  };
}
