/** What a receiver gets: the event's identity and context around `data`, the resource as rendered. */
export interface PayloadInput {
  id: string;
  type: string;
  occurredAt: string;
  projectId: number;
  actorId: number;
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
    project: { id: event.projectId },
    actor: { id: event.actorId },
    data: event.data,
  });
