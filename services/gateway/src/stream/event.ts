import type { ResourceEventType } from '@flowboard/events';
import { encodePosition } from './position';

/**
 * One change as the stream keeps and delivers it: where it is in the log, whose it is, its webhook event name and
 * its payload already serialized (shared by the ring and every subscriber's queue: never copied per subscriber).
 * `position` is the encoded position after it (its SSE `id:`), made once; `bytes` the payload's UTF-8 size, which
 * the ring's and the queues' byte bounds count.
 */
export interface StreamEvent {
  readonly partition: number;
  readonly offset: number;
  readonly projectId: number;
  readonly type: ResourceEventType;
  readonly payload: string;
  readonly position: string;
  readonly bytes: number;
}

export interface StreamEventInput {
  partition: number;
  offset: number;
  projectId: number;
  type: ResourceEventType;
  payload: string;
}

export function streamEvent(input: StreamEventInput): StreamEvent {
  const { partition, offset, projectId, type, payload } = input;
  return Object.freeze({
    partition,
    offset,
    projectId,
    type,
    payload,
    position: encodePosition({ partition, offset }),
    bytes: Buffer.byteLength(payload, 'utf8'),
  });
}
