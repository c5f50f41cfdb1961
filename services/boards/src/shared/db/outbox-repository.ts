import { enqueueOutbox, enqueueOutboxAll, type Queryable } from '@flowboard/pg-kit';
import type { BoardsOutbox } from '../application/resource-events';

/**
 * The outbox table of the boards schema, on the pool or on one transaction's client. The port is shared by
 * every publishing service (@flowboard/events); an event written here is published once its transaction
 * commits.
 */
export function outboxRepository(db: Queryable, schema: string): BoardsOutbox {
  return {
    enqueue: (message) => enqueueOutbox(db, schema, message),
    enqueueAll: (messages) => enqueueOutboxAll(db, schema, messages),
  };
}
