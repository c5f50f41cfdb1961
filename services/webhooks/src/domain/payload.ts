import { changePayloadJson } from '@flowboard/representation';

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
 * sends the same bytes (the signature covers them). Written by packages/representation (changePayloadJson), so a
 * change reads the same on the gateway's change stream.
 */
export const payloadBody = ({ occurredAt, ...event }: PayloadInput): string =>
  changePayloadJson({ ...event, timestamp: occurredAt });
