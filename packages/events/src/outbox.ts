/**
 * An event to publish, written in the caller's transaction (the outbox), so it goes out if and only if the state
 * change commits. The relay may publish it twice after a crash: consumers dedupe by `id`, the envelope's id.
 */
export interface OutboxMessage {
  id: string;
  topic: string;
  key: string;
  payload: unknown;
  headers?: Record<string, string>;
  /**
   * A change the API's writer is told of (a resource-changed event): once its transaction commits, its id is in the
   * write's answer (`Flowboard-Changes`). Not stored with the event.
   */
  change?: boolean;
}

/** The port use cases write events through (each service's PostgreSQL adapter implements it). */
export interface Outbox {
  enqueue(message: OutboxMessage): Promise<void>;
}
