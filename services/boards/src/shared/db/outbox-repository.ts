import type { Outbox } from '@flowboard/events';
import { enqueueOutbox, type Queryable } from '@flowboard/pg-kit';

/**
 * The outbox table of the boards schema, on the pool or on one transaction's client. The port is shared by
 * every publishing service (@flowboard/events); an event written here is published once its transaction
 * commits.
 */
export function outboxRepository(db: Queryable, schema: string): Outbox {
  return {
    enqueue: (message) => enqueueOutbox(db, schema, message),
  };
}
