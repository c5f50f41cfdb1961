import type { AttemptResult } from '../domain/attempt-result';
import { describeDuration, nextAttempt, type RetryPolicy } from '../domain/retry-schedule';
import { deliveryHeaders } from '../domain/signature';
import { parseWebhookUrl, type WebhookTarget } from '../domain/webhook-url';
import type { ClaimedDelivery, DeliveryOutcome, DeliveryStore, UseCaseLogger, WebhookSender } from './ports';

/** One attempt of a claimed delivery: sign, send, record. Resolves without recording when `signal` aborts it. */
export type AttemptDelivery = (claim: ClaimedDelivery, signal: AbortSignal) => Promise<void>;

export interface AttemptDeliveryDeps {
  deliveries: Pick<DeliveryStore, 'finish'>;
  sender: WebhookSender;
  retry: RetryPolicy;
  userAgent: string;
  logger: UseCaseLogger;
  /** Sees every recorded attempt (metrics). */
  observe?: (outcome: DeliveryOutcome['kind'], result: AttemptResult) => void;
  random?: () => number;
}

const failed = (error: string): AttemptResult => ({ ok: false, statusCode: 0, latencyMs: 0, error });

/**
 * Logs name the delivery, webhook and event, the receiver's origin and status: never the URL's path or query
 * (they may hold the receiver's token), the secret, the body or the receiver's answer.
 */
export function makeAttemptDelivery(deps: AttemptDeliveryDeps): AttemptDelivery {
  return async (claim, signal) => {
    const started = Date.now();
    let target: WebhookTarget | undefined;
    let result: AttemptResult;
    try {
      target = parseWebhookUrl(claim.url);
    } catch (err) {
      target = undefined;
      result = failed((err as Error).message);
    }
    if (target && claim.secret === undefined) {
      deps.logger.error(
        { deliveryId: claim.id, webhookId: claim.webhookId },
        "the webhook's secret cannot be opened: SECRET_ENCRYPTION_KEY is not the key it was sealed with",
      );
      result = failed('the signing secret cannot be read (a service configuration problem)');
    } else if (target && claim.secret !== undefined) {
      const message = { id: claim.eventId, timestamp: Math.floor(Date.now() / 1000), body: claim.body };
      result = await deps.sender.send({
        target,
        headers: deliveryHeaders(claim.secret, message, deps.userAgent),
        body: claim.body,
        signal,
      });
    }
    // Abandoned at shutdown: not recorded, so the lease hands the delivery to another replica, as after a crash.
    if (signal.aborted) return;
    result ??= failed('no result');

    let outcome: DeliveryOutcome;
    if (result.ok) {
      outcome = { kind: 'succeeded' };
    } else {
      const decision = nextAttempt(
        deps.retry,
        claim.attempt,
        claim.elapsedMs + (Date.now() - started),
        deps.random,
      );
      const window = describeDuration(deps.retry.giveUpAfterMs);
      const origin = target?.origin ?? 'an invalid URL';
      outcome =
        decision === 'give-up'
          ? {
              kind: 'give-up',
              failure: `gave up after ${claim.attempt} attempts over ${window}; last error: ${result.error}`,
              disabledReason: `disabled after ${window} of failed deliveries to ${origin}: last error ${result.error}`,
            }
          : { kind: 'retry', inMs: decision.retryInMs };
    }
    await deps.deliveries.finish(claim, result, outcome);
    deps.observe?.(outcome.kind, result);

    const details = {
      deliveryId: claim.id,
      webhookId: claim.webhookId,
      projectId: claim.projectId,
      eventId: claim.eventId,
      attempt: claim.attempt,
      origin: target?.origin,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      // Our own words for transport failures; a receiver's answer (status ≠ 0) stays in the delivery log only.
      reason: result.statusCode === 0 ? result.error : undefined,
    };
    if (outcome.kind === 'give-up') {
      deps.logger.warn(details, 'webhook delivery gave up; the webhook is disabled');
    } else if (outcome.kind === 'retry') {
      // Debug: a receiver down for a day retries dozens of times; the attempts metric shows failures at a glance.
      deps.logger.debug({ ...details, retryInMs: outcome.inMs }, 'webhook delivery failed; retrying');
    }
  };
}
