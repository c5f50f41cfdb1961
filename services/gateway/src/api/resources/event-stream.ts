import { DomainError } from '@flowboard/service-kit';
import { toJson } from '@flowboard/representation';
import { apiKeyHash, extractApiKey } from '../../authz/credentials';
import {
  decodePosition,
  encodePosition,
  HistoryGoneError,
  positionBefore,
  type Closed,
  type Position,
  type StreamEvent,
  type StreamHub,
  type Subscription,
} from '../../stream';
import { renderEventBatch } from '../../wire/event-batch';
import { acceptsEventStream } from '../../wire/negotiate';
import { HttpProblem, problemDto, StatusProblem } from '../../wire/problem';
import { handled, rendered, type Reply } from '../../wire/respond';
import { EVENT_STREAM_HEADERS, sseComment, sseEvent, sseStart } from '../../wire/sse';
import type { Call } from '../call';
import {
  checkAccess,
  sharedRefresh,
  StreamSlots,
  watchAccess,
  type AccessCheckDeps,
  type StreamCaller,
} from './stream-access';
import type { StreamRouteDeps } from './deps';

/**
 * `GET P/events`: a project's change stream, served from the replica's StreamHub (stream/README.md) in two forms.
 *
 * - **SSE** (`Accept` names `text/event-stream`): `retry:` and the start position as the first block, then one
 *   block per change (`event:` its type, `id:` its position, `data:` its webhook payload), a comment line after
 *   `heartbeatMs` without any, until the client leaves or the subscription ends: `event: closed` (`slow`,
 *   `shutdown`, `error`: `data` says the reason and the position to resume from, which is also the block's `id`, so
 *   an EventSource resumes there by itself), `event: gone` (a problem: start again from now) or `event: revoked`
 *   (a problem: the key or the access is gone). A write the client does not take waits for it (`drain`); while it
 *   waits, the hub's bounded queue takes the changes, and one that overflows closes the stream as `slow`.
 * - **Long-poll** (JSON or XML): the changes after the position, at most `limit`, waiting up to `wait` seconds when
 *   there are none yet; then the subscription ends. `position` in the answer is where the next request continues.
 *
 * The start: `Last-Event-ID`, else `after=`, else `from=now` (also without any). Refusals come before any byte of a
 * stream, in the request's format: 400 (a malformed position or argument, or one of another project's partition),
 * 429 (the key's open streams on this replica), 410 (the history after the position is no longer retained), 503
 * (the replica does not read the project's partition yet). An open stream (and a waiting long-poll) checks its
 * caller's key and access again every `accessRecheckMs`.
 */

/** What the client waits before reconnecting (SSE `retry:`). */
export const SSE_RETRY_MS = 3_000;
/**
 * How long a long-poll that has events waits for more before it answers (a burst of one write comes together). While
 * its subscription still replays (Kafka's history, then the ring) it keeps waiting, up to its deadline: the rest is
 * stored already, and between a history read's last event and the ring's first there can be more than this (a busy
 * machine: the history reader finishing its fetch).
 */
const LINGER_MS = 50;
/** At most this many events are written at once (one `write`); the hub's queue holds the rest. */
export const SSE_BATCH = 100;
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1_000;
export const MAX_WAIT_SECONDS = 60;
/**
 * A long-poll from a position older than the replica's ring reads Kafka's history first: it waits this long for
 * that read even with `wait=0` (within `longPollMaxWaitMs`), or a poller that fell that far behind would get
 * nothing, poll after poll.
 */
export const HISTORY_WAIT_MS = 5_000;
/** 429's `Retry-After`: a stream of the key may end any time; try again a little later. */
export const STREAM_CAP_RETRY_AFTER_SECONDS = 10;
/** How old a cache epoch read the access checks share may be. */
const EPOCH_MAX_AGE_MS = 1_000;

/** What the change stream needs of the gateway's authorization (RouteDeps' `apiKeys` and `access`). */
export type ChangeStreamAuth = Pick<AccessCheckDeps, 'apiKeys' | 'access'>;

export interface ChangeStream {
  serve(call: Call): Promise<Reply>;
  /** This replica's open streams per key. */
  readonly slots: StreamSlots;
}

export function changeStream(options: StreamRouteDeps, auth: ChangeStreamAuth): ChangeStream {
  const { heartbeatMs, accessRecheckMs, longPollMaxWaitMs } = options;
  const slots = new StreamSlots(options.maxStreamsPerKey);
  const checkDeps: AccessCheckDeps = {
    ...auth,
    refreshEpoch: sharedRefresh(() => options.cacheEpoch.refresh(), EPOCH_MAX_AGE_MS),
  };

  async function serve(call: Call): Promise<Reply> {
    const hub = options.hub();
    if (!hub)
      throw new DomainError('Unavailable', 'The change stream is starting: try again in a few seconds.');
    const projectId = call.project.projectId;
    const sse = acceptsEventStream(call.req.headers.accept);
    const start = startOf(call);
    const poll = sse ? undefined : pollArguments(call, longPollMaxWaitMs);
    if (sse && call.req.method === 'HEAD') {
      streamHead(call.res);
      call.res.end();
      return handled();
    }
    const caller = callerOf(call, projectId);
    const release = slots.take(caller.keyHash);
    if (!release) throw tooManyStreams(options.maxStreamsPerKey);
    try {
      const subscription = await subscribe(hub, projectId, start);
      let lost: DomainError | undefined;
      const watch = watchAccess(() => checkAccess(checkDeps, caller), accessRecheckMs, {
        lost(error) {
          lost = error;
          subscription.close('revoked');
        },
        undecided() {
          subscription.close('error');
        },
      });
      try {
        if (poll) {
          const waitMs =
            start !== 'now' && olderThanRing(hub, start)
              ? Math.max(poll.waitMs, Math.min(HISTORY_WAIT_MS, longPollMaxWaitMs))
              : poll.waitMs;
          return await longPoll(call, subscription, poll.limit, waitMs, () => lost);
        }
        await streamEvents(call, subscription, heartbeatMs, () => lost);
        return handled();
      } finally {
        watch.stop();
        subscription.close('unsubscribed');
      }
    } finally {
      release();
    }
  }

  return { serve, slots };
}

/** The key this request came with (it has authenticated): what the cap counts and the checks authenticate again. */
function callerOf(call: Call, projectId: number): StreamCaller {
  const rawKey = extractApiKey(call.req.headers, call.query);
  if (rawKey === undefined) throw new Error('the change stream was reached without an API key');
  return { rawKey, keyHash: apiKeyHash(rawKey), projectId, needed: 'Read' };
}

// The start and the arguments ---------------------------------------------------------------------------------

const invalidParameter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-parameter' });

/** `Last-Event-ID` (an EventSource resuming), else `after=`, else `from=now` (also the default). */
export function startOf(call: Pick<Call, 'req' | 'query'>): Position | 'now' {
  const header = call.req.headers['last-event-id'];
  const lastEventId = Array.isArray(header) ? header[0] : header;
  if (lastEventId !== undefined && lastEventId.trim() !== '') {
    const position = decodePosition(lastEventId.trim());
    if (!position) throw invalidParameter('Header Last-Event-ID is not a position of the change stream.');
    return position;
  }
  const from = single(call.query, 'from');
  if (from !== undefined && from.toLowerCase() !== 'now') {
    throw invalidParameter("Query argument 'from' must be 'now' (or use 'after' with a position).");
  }
  const after = single(call.query, 'after');
  if (after !== undefined) {
    const position = decodePosition(after);
    if (!position) {
      throw invalidParameter(
        "Query argument 'after' is not a position of the change stream (an event's id, or an answer's position).",
      );
    }
    return position;
  }
  return 'now';
}

/** `limit` (1–1000, default 100) and `wait` (0–60 seconds, default 0; at most `maxWaitMs` is waited). */
export function pollArguments(
  call: Pick<Call, 'query'>,
  maxWaitMs: number,
): { limit: number; waitMs: number } {
  const limit = integerArgument(call, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT);
  const wait = integerArgument(call, 'wait', 0, 0, MAX_WAIT_SECONDS);
  return { limit, waitMs: Math.min(wait * 1000, maxWaitMs) };
}

function integerArgument(
  call: Pick<Call, 'query'>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = single(call.query, name);
  if (raw === undefined) return fallback;
  const value = /^\s*\d{1,7}\s*$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) {
    throw invalidParameter(`Query argument '${name}' must be an integer from ${min} to ${max}.`);
  }
  return value;
}

function single(query: Call['query'], name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw invalidParameter(`Query argument '${name}' is given more than once.`);
  return values[0];
}

// Subscribing -------------------------------------------------------------------------------------------------

async function subscribe(hub: StreamHub, projectId: number, start: Position | 'now'): Promise<Subscription> {
  const result = await hub.subscribe(projectId, start);
  switch (result.kind) {
    case 'subscribed':
      return result.subscription;
    case 'foreign':
      throw invalidParameter("The position is not one of this project's change stream.");
    case 'gone':
      throw historyGone(start === 'now' ? undefined : positionBefore(start.partition, result.earliest));
    case 'unavailable':
      throw new DomainError(
        'Unavailable',
        "This replica cannot serve the project's change stream yet; retry.",
        {
          cause: result.error,
        },
      );
  }
}

/** 410: the changes after the position were deleted by retention; `earliest`, when known, is the oldest position served. */
export function historyGone(earliest: Position | undefined): StatusProblem {
  return new StatusProblem(
    410,
    'history-gone',
    'Gone',
    'The changes after this position are no longer retained: read the board again, then stream from now ' +
      `(from=now)${earliest ? `. The oldest position still served is ${encodePosition(earliest)}` : ''}.`,
  );
}

const tooManyStreams = (max: number) =>
  new HttpProblem(
    'RateLimited',
    `This API key has ${max} change streams open on this server already; close one or retry later.`,
    { 'Retry-After': String(STREAM_CAP_RETRY_AFTER_SECONDS) },
  );

/** Whether the position is older than the replica's ring: its subscription reads Kafka's history first. */
function olderThanRing(hub: StreamHub, start: Position): boolean {
  const ring = hub.stats().partitions.find((p) => p.partition === start.partition);
  return ring !== undefined && start.offset + 1 < ring.coveredFrom;
}

// Long-poll ---------------------------------------------------------------------------------------------------

async function longPoll(
  call: Call,
  subscription: Subscription,
  limit: number,
  waitMs: number,
  lost: () => DomainError | undefined,
): Promise<Reply> {
  const left = new AbortController();
  const onClose = () => left.abort();
  call.res.once('close', onClose);
  if (call.res.destroyed) left.abort(); // the client left while the subscription was made
  try {
    const deadline = Date.now() + waitMs;
    let delivery = await subscription.next({ max: limit, timeoutMs: waitMs, signal: left.signal });
    if (delivery.events.length === 0 && delivery.closed) refuseClosed(delivery.closed, lost());
    // A replay (Kafka's history, the ring) hands events over a few at a time: take what follows at once, up to
    // `limit`, so a poller behind gets full pages rather than one event (and one history read) per poll.
    const events = [...delivery.events];
    while (events.length > 0 && events.length < limit && !delivery.closed && !left.signal.aborted) {
      delivery = await subscription.next({
        max: limit - events.length,
        timeoutMs: LINGER_MS,
        signal: left.signal,
      });
      const replayGoesOn = subscription.replaying && Date.now() < deadline;
      if (delivery.events.length === 0 && !replayGoesOn) break;
      events.push(...delivery.events);
    }
    return rendered(
      renderEventBatch(
        call.format,
        events.map((e) => ({ id: e.position, event: e.type, payload: e.payload })),
        delivery.position,
      ),
    );
  } finally {
    call.res.off('close', onClose);
  }
}

/** A long-poll whose subscription ended before any event: the answer its reason calls for. */
function refuseClosed(closed: Closed, lost: DomainError | undefined): void {
  switch (closed.reason) {
    case 'revoked':
      throw lost ?? new DomainError('PermissionDenied', 'Access to the project was lost.');
    case 'gone':
      throw historyGone(earliestOf(closed));
    case 'error':
    case 'shutdown':
      throw new DomainError('Unavailable', "The project's change stream was interrupted; retry.", {
        cause: closed.error,
      });
    case 'slow':
    case 'unsubscribed':
      // Nothing taken: the answer is the start position again, from which the next poll continues.
      return;
  }
}

function earliestOf(closed: Closed): Position | undefined {
  const error = closed.error;
  return error instanceof HistoryGoneError ? positionBefore(error.partition, error.earliest) : undefined;
}

// SSE ---------------------------------------------------------------------------------------------------------

/** Status and headers of an event stream (before its first byte). */
function streamHead(res: Call['res']): void {
  res.status(200);
  for (const [name, value] of Object.entries(EVENT_STREAM_HEADERS)) res.setHeader(name, value);
  res.removeHeader('Content-Length');
}

type Sent = 'sent' | 'closed' | 'stalled';

/**
 * Writes the subscription's events to the response until one of them ends. Every end path closes the
 * subscription (the caller's `finally`) and ends or destroys the response.
 */
async function streamEvents(
  call: Call,
  subscription: Subscription,
  heartbeatMs: number,
  lost: () => DomainError | undefined,
): Promise<void> {
  const { res } = call;
  // A client that takes no byte for this long is gone for all purposes: it is cut off (it resumes by its position).
  const stallMs = 2 * heartbeatMs;
  const left = new AbortController();
  const onClose = () => {
    left.abort();
    subscription.close('unsubscribed');
  };
  res.once('close', onClose);

  const send = (chunk: string): Promise<Sent> => {
    if (left.signal.aborted || res.destroyed) return Promise.resolve('closed');
    if (res.write(chunk)) return Promise.resolve('sent');
    return drained(res, stallMs);
  };
  const finish = async (chunk: string) => {
    if ((await send(chunk)) === 'sent') endWithin(res, stallMs);
    else res.destroy();
  };

  try {
    streamHead(res);
    let sent = await send(sseStart(SSE_RETRY_MS, subscription.position));
    while (sent === 'sent') {
      const delivery = await subscription.next({
        max: SSE_BATCH,
        timeoutMs: heartbeatMs,
        signal: left.signal,
      });
      if (left.signal.aborted) return;
      if (delivery.events.length > 0) {
        sent = await send(delivery.events.map(eventBlock).join(''));
      } else if (delivery.closed) {
        return await finish(closingBlock(delivery.closed, lost(), call.requestId));
      } else {
        sent = await send(sseComment('keep-alive'));
      }
    }
    if (sent === 'stalled') {
      subscription.close('slow');
      res.destroy();
    }
  } finally {
    res.off('close', onClose);
  }
}

const eventBlock = (event: StreamEvent): string =>
  sseEvent({ event: event.type, id: event.position, data: event.payload });

/** The last block of a stream its subscription ended. */
function closingBlock(closed: Closed, lost: DomainError | undefined, requestId: string): string {
  const problem = (error: DomainError) => toJson(problemDto(error, requestId));
  switch (closed.reason) {
    case 'gone':
      return sseEvent({ event: 'gone', data: problem(historyGone(earliestOf(closed))) });
    case 'revoked':
      return sseEvent({
        event: 'revoked',
        data: problem(lost ?? new DomainError('PermissionDenied', 'Access to the project was lost.')),
      });
    default:
      // slow, shutdown, error (and unsubscribed, which only the route itself does): resume from the position.
      return sseEvent({
        event: 'closed',
        id: closed.position,
        data: JSON.stringify({ reason: closed.reason, position: closed.position }),
      });
  }
}

/** Waits for the response to take what it holds: `drain`, or the client leaving, or `stallMs` without either. */
function drained(res: Call['res'], stallMs: number): Promise<Sent> {
  if (res.destroyed) return Promise.resolve('closed');
  return new Promise((resolve) => {
    const done = (sent: Sent) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(sent);
    };
    const onDrain = () => done('sent');
    const onClose = () => done('closed');
    const timer = setTimeout(() => done('stalled'), stallMs);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/** Ends the response; a client that does not take its last bytes within `stallMs` is cut off. */
function endWithin(res: Call['res'], stallMs: number): void {
  res.end();
  if (res.writableFinished) return;
  const timer = setTimeout(() => res.destroy(), stallMs);
  timer.unref();
  res.once('close', () => clearTimeout(timer));
}
