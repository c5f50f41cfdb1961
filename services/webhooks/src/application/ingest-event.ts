import type { Envelope, ResourceChangedV1 } from '@flowboard/events';
import { payloadBody } from '../domain/payload';
import type { DeliveryStore, PayloadRenderer } from './ports';

/** Answers how many deliveries the event made (0 for a duplicate, or when nobody subscribes). */
export type IngestEvent = (event: Envelope<ResourceChangedV1>) => Promise<number>;

/**
 * A change event → the body receivers get, stored once, and one pending delivery per subscribed webhook, in one
 * transaction; the consumer commits the Kafka offset only after it. A redelivered message finds the event stored
 * and makes nothing. Events nobody subscribes to are not stored (most projects have no webhooks), and are not
 * rendered either: rendering may cost calls to other services.
 */
export function makeIngestEvent(deps: {
  deliveries: DeliveryStore;
  renderer: PayloadRenderer;
  wake: () => void;
}): IngestEvent {
  return async (event) => {
    const { projectId, type, subject } = event.data;
    const plan = await deps.deliveries.ingestionPlan(event.id, projectId, type);
    if (plan.stored || plan.subscribers === 0) return 0;
    const rendered = await deps.renderer.render(event);
    const created = await deps.deliveries.ingest({
      id: event.id,
      projectId,
      type,
      subject,
      occurredAt: new Date(event.occurredAt),
      body: payloadBody({ id: event.id, type, occurredAt: event.occurredAt, ...rendered }),
    });
    if (created > 0) deps.wake();
    return created;
  };
}
