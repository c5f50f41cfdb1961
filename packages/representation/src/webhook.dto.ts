import type { webhooks } from '@flowboard/proto';
import type { Dto } from './dto';

/**
 * A project webhook (a flowboard addition): `{id, url, eventTypes, active, description, disabledReason?,
 * createTime, updateTime}`. `eventTypes` empty = every type. `disabledReason` only while the service has disabled
 * it (its retries ran out). The signing `secret` only in the create response, last, as an API key's `key`.
 */
export const webhookDto = (webhook: webhooks.Webhook__Output, secret?: string): Dto => ({
  id: webhook.id,
  url: webhook.url,
  eventTypes: webhook.event_types,
  active: webhook.active,
  description: webhook.description,
  disabledReason: webhook.disabled_reason || undefined,
  createTime: webhook.created_at,
  updateTime: webhook.updated_at,
  secret,
});

/**
 * One event sent to one webhook, its latest attempt on top and every attempt (newest first) below. What an attempt
 * did not produce is omitted, as unset fields are: `responseStatusCode` without a response, `error` after a success,
 * `latencyMs` and `attemptedAt` before the first attempt, `nextAttemptAt` unless a retry is scheduled.
 */
export const deliveryDto = (delivery: webhooks.Delivery__Output): Dto => ({
  id: delivery.id,
  eventId: delivery.event_id,
  eventType: delivery.event_type,
  attempt: delivery.attempt,
  status: delivery.status,
  responseStatusCode: delivery.response_status_code || undefined,
  latencyMs: delivery.attempt > 0 ? delivery.latency_ms : undefined,
  error: delivery.error || undefined,
  attemptedAt: delivery.attempted_at || undefined,
  nextAttemptAt: delivery.next_attempt_at || undefined,
  createTime: delivery.created_at,
  attempts: delivery.attempts.map(deliveryAttemptDto),
});

export const deliveryAttemptDto = (attempt: webhooks.DeliveryAttempt__Output): Dto => ({
  attempt: attempt.attempt,
  status: attempt.status,
  responseStatusCode: attempt.response_status_code || undefined,
  latencyMs: attempt.latency_ms,
  error: attempt.error || undefined,
  attemptedAt: attempt.attempted_at,
});
