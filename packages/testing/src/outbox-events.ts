import { parseEvent, resourceChangedV1, type Envelope, type ResourceChangedV1 } from '@flowboard/events';
import { assertMatchesTopicSchema } from './event-schemas';

/** A pg pool or client: what the helpers below query the service's schema through. */
export interface Queryable {
  query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/** What every change event a service writes must carry. */
export interface OutboxExpectation {
  /** The envelope's `source`: the service that wrote it. */
  source: string;
  /** The `x-request-id` header the outbox row must carry (from the call's context), when the test sets one. */
  requestId?: string;
}

/**
 * A project's `flowboard.resource-changed.v1` events in a service's outbox, in the order they were written (and
 * are published), each checked against the topic's JSON Schema and parsed by the contract. Throws if a row breaks
 * the schema, or if its envelope id, source or request id is not what the service must write.
 */
export async function changeEventsInOutbox(
  db: Queryable,
  projectId: number,
  expected: OutboxExpectation,
): Promise<Array<Envelope<ResourceChangedV1>>> {
  const { rows } = await db.query<{ id: string; payload: unknown; headers: Record<string, string> }>(
    'SELECT id, payload, headers FROM outbox WHERE topic = $1 AND key = $2 ORDER BY seq',
    [resourceChangedV1.topic, String(projectId)],
  );
  return rows.map((row) => {
    assertMatchesTopicSchema(resourceChangedV1.topic, row.payload);
    const event = parseEvent(resourceChangedV1, JSON.stringify(row.payload));
    const wrong = [
      event.id !== row.id && `envelope id ${event.id} is not the row's id ${row.id}`,
      event.source !== expected.source && `source is ${event.source}, not ${expected.source}`,
      expected.requestId !== undefined &&
        row.headers['x-request-id'] !== expected.requestId &&
        `x-request-id is ${row.headers['x-request-id']}, not ${expected.requestId}`,
    ].filter(Boolean);
    if (wrong.length > 0) throw new Error(`outbox row ${row.id}: ${wrong.join('; ')}`);
    return event;
  });
}

/** Each call answers the project's change events (their data) written since the previous call. */
export function changeEventLog(
  db: Queryable,
  projectId: number,
  expected: OutboxExpectation,
): () => Promise<ResourceChangedV1[]> {
  let seen = 0;
  return async () => {
    const all = await changeEventsInOutbox(db, projectId, expected);
    const fresh = all.slice(seen);
    seen = all.length;
    return fresh.map((e) => e.data);
  };
}
