import { enqueueOutbox, type Queryable } from '@flowboard/pg-kit';
import type { Outbox } from '../application/ports';

/** The outbox table of the boards schema, on the pool or on one transaction's client. */
export function outboxRepository(db: Queryable, schema: string): Outbox {
  return {
    enqueue: (message) => enqueueOutbox(db, schema, message),
  };
}
