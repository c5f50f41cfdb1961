import { randomUUID } from 'node:crypto';
import { DomainError } from '@flowboard/service-kit';
import { payloadBody } from '../domain/payload';
import { PING_EVENT_TYPE } from '../domain/webhook';
import { webhookNotFound } from './get-webhook';
import type { DeliveryStore } from './ports';

/** Answers the ping's delivery id. */
export type PingWebhook = (projectId: number, webhookId: number, actorId: number) => Promise<number>;

/**
 * A `webhook.ping` event for this webhook alone, delivered like any other (signed, retried, logged): a receiver
 * can be tested without waiting for a change. Its subject is the webhook, so it is ordered only among pings.
 */
export function makePingWebhook(deps: { deliveries: DeliveryStore; wake: () => void }): PingWebhook {
  return async (projectId, webhookId, actorId) => {
    const id = randomUUID();
    const occurredAt = new Date();
    const created = await deps.deliveries.enqueueFor(projectId, webhookId, {
      id,
      projectId,
      type: PING_EVENT_TYPE,
      subject: `webhook:${webhookId}`,
      occurredAt,
      body: payloadBody({
        id,
        type: PING_EVENT_TYPE,
        occurredAt: occurredAt.toISOString(),
        project: { id: projectId },
        actor: { id: actorId },
        data: { webhook: { id: webhookId } },
      }),
    });
    if (created === undefined) throw webhookNotFound();
    if (created === 'inactive') {
      throw new DomainError('FailedPrecondition', 'The webhook is not active; activate it before pinging.');
    }
    deps.wake();
    return created;
  };
}
