// The change stream's core (docs: README.md beside this file): pure, behind ports; ../feed/ (Kafka) and the routes
// (api/resources/event-stream.ts) import from here.
export { streamEvent, type StreamEvent, type StreamEventInput } from './event';
export {
  DEFAULT_QUEUE_LIMITS,
  DEFAULT_RING_LIMITS,
  StreamHub,
  type CloseReason,
  type Closed,
  type Delivery,
  type HubOptions,
  type HubStats,
  type NextOptions,
  type QueueLimits,
  type SubscribeResult,
  type Subscription,
} from './hub';
export { partitionOf } from './partition';
export { HistoryGoneError, type HistoryRange, type HistoryReader } from './ports';
export {
  comparePositions,
  decodePosition,
  encodePosition,
  positionBefore,
  positionOf,
  type Position,
} from './position';
export type { RingLimits } from './ring';
