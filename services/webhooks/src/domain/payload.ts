/** What a receiver gets: the event's identity, then where and by whom, then `data`, the resource as rendered. */
export interface PayloadInput {
  id: string;
  type: string;
  occurredAt: string;
  /** `{id, name}` (a ping: `{id}`) */
  project: object;
  /** `{id, name, userName, email}` (a system action or a ping: `{id}`) */
  actor: object;
  /** `{id}`, when the change is to a story's task, comment, tag or attachment */
  story?: object;
  data: object;
}

/**
 * The JSON body POSTed for an event. Built once, at ingestion, and stored as text: every attempt and redelivery
 * sends the same bytes (the signature covers them).
 */
export const payloadBody = (event: PayloadInput): string =>
  JSON.stringify({
    id: event.id,
    type: event.type,
    timestamp: event.occurredAt,
    project: event.project,
    actor: event.actor,
    story: event.story,
    data: event.data,
  });
