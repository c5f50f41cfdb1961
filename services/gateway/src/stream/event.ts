import type { ResourceEventType } from '@flowboard/events';
import { encodePosition } from './position';

/**
 * One change as the stream keeps and delivers it: where it is in the log, whose it is, its webhook event name and
 * its payload serialized (shared by the ring and every subscriber's queue: never copied per subscriber).
 * `position` is the encoded position after it (its SSE `id:`), made once; `bytes` its size, which the ring's and the
 * queues' byte bounds count: the payload's UTF-8 size, or for an event rendered later the size of what it is
 * rendered from.
 *
 * `payload` can be read once the event is rendered: at once for an event made with its payload (`streamEvent`), after
 * `renderPayloads` for one made to be rendered on first need (`unrenderedStreamEvent`).
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

/**
 * Renders the payloads of several events made by `unrenderedStreamEvent` at once (so what they share, such as the
 * names of their project, is looked up once), in the order of `sources`.
 */
export interface PayloadRenderer<Source> {
  render(sources: readonly Source[]): Promise<string[]>;
}

export interface UnrenderedStreamEventInput<Source> extends Omit<StreamEventInput, 'payload'> {
  /** What the payload is rendered from, kept until then. */
  source: Source;
  /** The size the byte bounds count until and after rendering (a bound must not change under the ring). */
  bytes: number;
  renderer: PayloadRenderer<Source>;
}

class Change implements StreamEvent {
  readonly position: string;
  private rendered: string | undefined;
  /** Until rendered: what to render from, and how. */
  private pending: { source: unknown; renderer: PayloadRenderer<unknown> } | undefined;
  private rendering: Promise<void> | undefined;

  constructor(
    readonly partition: number,
    readonly offset: number,
    readonly projectId: number,
    readonly type: ResourceEventType,
    readonly bytes: number,
    payload: string | undefined,
    pending?: { source: unknown; renderer: PayloadRenderer<unknown> },
  ) {
    this.position = encodePosition({ partition, offset });
    this.rendered = payload;
    this.pending = pending;
  }

  get isRendered(): boolean {
    return this.rendered !== undefined;
  }

  get payload(): string {
    if (this.rendered === undefined) {
      throw new Error(`the payload at ${this.position} was read before it was rendered (renderPayloads)`);
    }
    return this.rendered;
  }

  /** @internal The renderer and source to render with, once: later callers wait for `rendering`. */
  claim(): { source: unknown; renderer: PayloadRenderer<unknown> } | undefined {
    const pending = this.pending;
    this.pending = undefined;
    return pending;
  }

  /** @internal */
  settle(payload: string): void {
    this.rendered = payload;
  }

  /** @internal */
  unclaim(pending: { source: unknown; renderer: PayloadRenderer<unknown> }): void {
    this.pending = pending;
    this.rendering = undefined;
  }

  /** @internal */
  whileRendering(rendering: Promise<void>): void {
    this.rendering = rendering;
  }

  /** @internal The render in progress, if another caller started it. */
  inProgress(): Promise<void> | undefined {
    return this.rendered === undefined ? this.rendering : undefined;
  }
}

export function streamEvent(input: StreamEventInput): StreamEvent {
  const { partition, offset, projectId, type, payload } = input;
  return new Change(partition, offset, projectId, type, Buffer.byteLength(payload, 'utf8'), payload);
}

/**
 * An event whose payload is rendered on first need (`renderPayloads`), not when it is read from Kafka: most changes
 * are never taken by a subscriber of this replica, and rendering one costs a names lookup (membership) and its
 * serialization (docs/design.md, "The change stream").
 */
export function unrenderedStreamEvent<Source>(input: UnrenderedStreamEventInput<Source>): StreamEvent {
  const { partition, offset, projectId, type, bytes, source, renderer } = input;
  return new Change(partition, offset, projectId, type, bytes, undefined, {
    source,
    renderer: renderer as PayloadRenderer<unknown>,
  });
}

/**
 * Renders every event of `events` not rendered yet, each renderer once for all of its events; resolves when each
 * event's `payload` can be read. An event another call is rendering is waited for, not rendered twice; a render
 * that fails leaves its events to be rendered by the next call.
 */
export function renderPayloads(events: readonly StreamEvent[]): Promise<void> {
  // The common case, a live subscriber's events the feed rendered before publishing them: nothing to do, nothing
  // allocated (every route calls this for every delivery).
  if (events.every((event) => !(event instanceof Change) || event.isRendered)) return RENDERED;
  return renderSome(events);
}

const RENDERED = Promise.resolve();

async function renderSome(events: readonly StreamEvent[]): Promise<void> {
  const batches = new Map<PayloadRenderer<unknown>, Array<{ event: Change; source: unknown }>>();
  const elsewhere: Promise<void>[] = [];
  for (const event of events) {
    if (!(event instanceof Change)) continue;
    const pending = event.claim();
    if (!pending) {
      const rendering = event.inProgress();
      if (rendering) elsewhere.push(rendering);
      continue;
    }
    const batch = batches.get(pending.renderer) ?? [];
    batch.push({ event, source: pending.source });
    batches.set(pending.renderer, batch);
  }
  const mine = [...batches].map(([renderer, batch]) => {
    const rendering = renderer.render(batch.map((item) => item.source)).then(
      (payloads) => batch.forEach(({ event }, i) => event.settle(payloads[i]!)),
      (err: unknown) => {
        for (const { event, source } of batch) event.unclaim({ source, renderer });
        throw err;
      },
    );
    for (const { event } of batch) event.whileRendering(rendering);
    return rendering;
  });
  await Promise.all([...mine, ...elsewhere]);
}
