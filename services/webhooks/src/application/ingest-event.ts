import type { Envelope, ResourceChangedV1 } from '@flowboard/events';
import { payloadBody } from '../domain/payload';
import type { DeliveryStore, PayloadRenderer } from './ports';

/** Answers how many deliveries the event made (0 for a duplicate, or when nobody subscribes). */
export type IngestEvent = (event: Envelope<ResourceChangedV1>) => Promise<number>;

export interface EventIngestion {
  ingest: IngestEvent;
  /**
   * Before a batch of events is ingested: which of their projects have no active webhook, in one query, so that
   * their events (most projects have no webhooks) cost no query each.
   */
  lookAhead(projectIds: number[]): Promise<void>;
}

/**
 * A change event → the body receivers get, stored once, and one pending delivery per subscribed webhook, in one
 * transaction; the consumer commits the Kafka offset only after it. A redelivered message finds the event stored
 * and makes nothing. Events nobody subscribes to are not stored, and are not rendered either: rendering may cost
 * calls to other services.
 *
 * Skipping by the look-ahead is as exact as asking per event: the look-ahead runs after its batch was fetched, so
 * after every event of the batch was published. A webhook it does not see was made after those events, and an
 * event from before a webhook was made is not the webhook's to receive. A project the look-ahead did not cover
 * (another batch's, or a key that was not its project) is asked about per event, as before.
 */
export function makeEventIngestion(deps: {
  deliveries: DeliveryStore;
  renderer: PayloadRenderer;
  wake: () => void;
}): EventIngestion {
  let withoutWebhooks: ReadonlySet<number> = new Set();
  return {
    async lookAhead(projectIds) {
      const unique = [...new Set(projectIds)];
      const withWebhooks = new Set(unique.length ? await deps.deliveries.projectsWithWebhooks(unique) : []);
      withoutWebhooks = new Set(unique.filter((id) => !withWebhooks.has(id)));
    },

    async ingest(event) {
      const { projectId, type, subject } = event.data;
      if (withoutWebhooks.has(projectId)) return 0;
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
    },
  };
}
