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
}

/** The port use cases write events through (each service's PostgreSQL adapter implements it). */
export interface Outbox {
  enqueue(message: OutboxMessage): Promise<void>;
}
