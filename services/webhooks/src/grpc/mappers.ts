import type { webhooks } from '@flowboard/proto';
import type { DeliveryRecord, WebhookRecord } from '../application/ports';
import { formatOptionalTimestamp, formatTimestamp } from '../domain/timestamp';

export const toWebhookMessage = (w: WebhookRecord): webhooks.Webhook => ({
  id: w.id,
  project_id: w.projectId,
  url: w.url,
  event_types: w.eventTypes,
  active: w.active,
  description: w.description,
  disabled_reason: w.disabledReason,
  created_at: formatTimestamp(w.createdAt),
  updated_at: formatTimestamp(w.updatedAt),
});

/** The delivery with its latest attempt's details on top, and every attempt below, newest first. */
export function toDeliveryMessage(d: DeliveryRecord): webhooks.Delivery {
  const latest = d.attemptLog[0];
  return {
    id: d.id,
    webhook_id: d.webhookId,
    event_id: d.eventId,
    event_type: d.eventType,
    attempt: d.attempts,
    status: d.status,
    response_status_code: latest?.statusCode ?? 0,
    latency_ms: latest?.latencyMs ?? 0,
    // Why it ended, when it ended without success (gave up, cancelled); else the latest attempt's error.
    error: d.failure || (latest?.error ?? ''),
    attempted_at: formatOptionalTimestamp(latest?.attemptedAt),
    next_attempt_at: d.status === 'pending' && !d.waiting ? formatOptionalTimestamp(d.nextAttemptAt) : '',
    created_at: formatTimestamp(d.createdAt),
    attempts: d.attemptLog.map((a) => ({
      attempt: a.attempt,
      status: a.status,
      response_status_code: a.statusCode,
      latency_ms: a.latencyMs,
      error: a.error,
      attempted_at: formatTimestamp(a.attemptedAt),
    })),
  };
}
