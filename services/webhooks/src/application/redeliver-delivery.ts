import { DomainError } from '@flowboard/service-kit';
import { webhookNotFound } from './get-webhook';
import type { DeliveryRecord, DeliveryStore, WebhookStore } from './ports';

export type RedeliverDelivery = (
  projectId: number,
  webhookId: number,
  deliveryId: number,
) => Promise<DeliveryRecord>;

const deliveryNotFound = () => new DomainError('NotFound', 'Delivery not found.');

/**
 * A new delivery of the same event: same webhook-id and body, a fresh signature per attempt, queued behind the
 * subject's pending deliveries. An inactive webhook sends nothing, so redelivering to it is refused until it is
 * activated again (activate, then redeliver what failed); a delivery still pending needs no second one.
 */
export function makeRedeliverDelivery(deps: {
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  wake: () => void;
}): RedeliverDelivery {
  return async (projectId, webhookId, deliveryId) => {
    if (!(await deps.webhooks.find(projectId, webhookId))) throw webhookNotFound();
    const created = await deps.deliveries.redeliver(webhookId, deliveryId);
    if (created === undefined) throw deliveryNotFound();
    if (created === 'inactive') {
      throw new DomainError(
        'FailedPrecondition',
        'The webhook is not active; activate it before redelivering.',
      );
    }
    if (created === 'pending') {
      throw new DomainError('FailedPrecondition', 'The delivery is still pending; it will be retried.');
    }
    deps.wake();
    return created; // as queued: pending, no attempt yet
  };
}
