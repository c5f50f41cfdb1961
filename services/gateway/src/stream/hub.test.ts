import { streamEvent, type StreamEvent } from './event';
import { StreamHub, type HubOptions, type Subscription } from './hub';
import { partitionOf } from './partition';
import { decodePosition, encodePosition, positionOf } from './position';
import { HistoryGoneError, type HistoryRange, type HistoryReader } from './ports';

/** Kafka as the hub sees it through its port: the whole log, a log start offset, reads that can be held. */
class FakeKafka implements HistoryReader {
  readonly log: StreamEvent[] = [];
  earliest = 0;
  reads: HistoryRange[] = [];
  finished = 0;
  /** Awaited before each event a read yields: a test publishes or evicts in between. */
  beforeYield: (() => Promise<void> | void) | undefined;
  failWith: Error | undefined;
  earliestFails = false;

  async earliestOffset(): Promise<number> {
    if (this.earliestFails) throw new Error('kafka down');
    return this.earliest;
  }

  async *read(range: HistoryRange): AsyncIterable<StreamEvent> {
    this.reads.push(range);
    try {
      for (const event of this.log) {
        if (event.partition !== range.partition || event.offset <= range.after || event.offset > range.upTo)
          continue;
        if (event.projectId !== range.projectId) continue;
        await this.beforeYield?.();
        if (this.failWith) throw this.failWith;
        yield event;
      }
    } finally {
      this.finished++;
    }
  }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function setup(options: Partial<HubOptions> = {}, start = 0) {
  const kafka = new FakeKafka();
  const hub = new StreamHub({
    partitionCount: 1,
    ring: { maxEvents: 100, maxBytes: 1e6 },
    queue: { maxEvents: 100, maxBytes: 1e6 },
    history: kafka,
    ...options,
  });
  for (let partition = 0; partition < hub.options.partitionCount; partition++)
    hub.startPartition(partition, start);
  const next = new Map<number, number>();
  /** The producer: the project's next change, into Kafka's log and to the hub (as the consumer would). */
  const write = (projectId: number, payload = `change of ${projectId}`): StreamEvent => {
    const partition = partitionOf(projectId, hub.options.partitionCount);
    const offset = next.get(partition) ?? start;
    next.set(partition, offset + 1);
    const event = streamEvent({ partition, offset, projectId, type: 'story.moved', payload });
    kafka.log.push(event);
    hub.publish(event);
    return event;
  };
  return { hub, kafka, write };
}

async function subscribed(hub: StreamHub, projectId: number, from: Parameters<StreamHub['subscribe']>[1]) {
  const result = await hub.subscribe(projectId, from);
  if (result.kind !== 'subscribed') throw new Error(`not subscribed: ${result.kind}`);
  return result.subscription;
}

/** Takes everything pending until nothing comes within a tick. */
async function drain(subscription: Subscription, max?: number): Promise<number[]> {
  const offsets: number[] = [];
  for (;;) {
    const delivery = await subscription.next({ timeoutMs: 5, ...(max ? { max } : {}) });
    if (delivery.events.length === 0) return offsets;
    offsets.push(...delivery.events.map((event) => event.offset));
  }
}

describe('StreamHub', () => {
  it('streams a project from now: its own events only, in order, with their positions', async () => {
    const { hub, write } = setup();
    write(1);
    const subscription = await subscribed(hub, 1, 'now');
    expect(subscription.position).toBe(encodePosition({ partition: 0, offset: 0 }));
    write(1);
    write(2);
    write(1);
    const delivery = await subscription.next();
    expect(delivery.events.map((event) => [event.offset, event.projectId])).toEqual([
      [1, 1],
      [3, 1],
    ]);
    expect(delivery.events.map((event) => event.position)).toEqual(['1-0-2', '1-0-4']);
    expect(delivery.position).toBe('1-0-4');
    expect(subscription.position).toBe('1-0-4');
    expect(hub.headPosition(1)).toEqual(positionOf(0, 3));
  });

  it('waits for the next events, then answers with what one consumer batch published, together', async () => {
    const { hub, write } = setup();
    const subscription = await subscribed(hub, 1, 'now');
    const waiting = subscription.next();
    write(1);
    write(1);
    write(1);
    expect((await waiting).events.map((event) => event.offset)).toEqual([0, 1, 2]);
    write(1);
    write(1);
    expect((await subscription.next({ max: 1 })).events.map((event) => event.offset)).toEqual([3]);
    expect((await subscription.next({ max: 1 })).events.map((event) => event.offset)).toEqual([4]);
  });

  it('answers a long-poll with nothing after its timeout, an abort, or at once with timeout 0', async () => {
    jest.useFakeTimers();
    try {
      const { hub } = setup();
      const subscription = await subscribed(hub, 1, 'now');
      const waiting = subscription.next({ timeoutMs: 30_000 });
      jest.advanceTimersByTime(30_000);
      expect(await waiting).toEqual({ events: [], position: '1-0-0' });
      const controller = new AbortController();
      const aborted = subscription.next({ signal: controller.signal });
      controller.abort();
      expect((await aborted).events).toEqual([]);
      expect((await subscription.next({ timeoutMs: 0 })).events).toEqual([]);
      await expect(subscription.next({ max: 0 })).rejects.toThrow(RangeError);
    } finally {
      jest.useRealTimers();
    }
  });

  it('allows one next() at a time', async () => {
    const { hub } = setup();
    const subscription = await subscribed(hub, 1, 'now');
    const first = subscription.next();
    await expect(subscription.next()).rejects.toThrow(/already waiting/);
    subscription.close();
    expect((await first).closed?.reason).toBe('unsubscribed');
  });

  it('resumes after a position from the ring, then live, nothing missed or twice', async () => {
    const { hub, write } = setup();
    const written = [write(1), write(2), write(1), write(1), write(2), write(1)];
    const subscription = await subscribed(hub, 1, decodePosition(written[2]!.position)!);
    write(1);
    expect(await drain(subscription)).toEqual([3, 5, 6]);
    write(2);
    write(1);
    expect(await drain(subscription)).toEqual([8]);
  });

  it('replays more than its queue holds in pieces, with events published during the replay, once each', async () => {
    const { hub, write } = setup({ queue: { maxEvents: 2, maxBytes: 1e6 } });
    for (let i = 0; i < 7; i++) write(1);
    const subscription = await subscribed(hub, 1, positionOf(0, -1));
    expect(subscription.pending).toBe(2);
    const got: number[] = [];
    for (let round = 0; round < 8; round++) {
      got.push(...(await subscription.next({ max: 1, timeoutMs: 5 })).events.map((event) => event.offset));
      write(1); // during the replay: into the ring, reached by the replay, never pushed twice
      write(2);
    }
    got.push(...(await drain(subscription, 1)));
    const mine = hub.stats().partitions[0]!.head;
    expect(got).toEqual([...Array(mine + 1).keys()].filter((offset) => offset < 7 || (offset - 7) % 2 === 0));
    expect(subscription.closed).toBeUndefined();
  });

  it('closes a live subscriber whose queue overflows as slow, with the position after what it took', async () => {
    const { hub, write } = setup({ queue: { maxEvents: 3, maxBytes: 1e6 } });
    const subscription = await subscribed(hub, 1, 'now');
    const other = await subscribed(hub, 1, 'now');
    write(1);
    expect((await subscription.next({ max: 1 })).events.map((event) => event.offset)).toEqual([0]);
    await drain(other);
    write(1);
    write(1);
    write(1);
    expect(subscription.closed).toBeUndefined();
    await drain(other);
    write(1);
    expect(subscription.closed).toEqual({ reason: 'slow', position: '1-0-1' });
    expect(subscription.pending).toBe(0);
    expect(await subscription.next()).toEqual({ events: [], position: '1-0-1', closed: subscription.closed });
    expect(other.closed).toBeUndefined();
    expect(hub.stats()).toMatchObject({ subscribers: 1, droppedSlow: 1 });

    // It resumes where it was: the events it had pending come again, from the ring.
    const resumed = await subscribed(hub, 1, decodePosition(subscription.closed!.position)!);
    expect(await drain(resumed)).toEqual([1, 2, 3, 4]);
  });

  it('bounds the queue by bytes too, but always takes one event into an empty queue', async () => {
    const { hub, write } = setup({ queue: { maxEvents: 100, maxBytes: 10 } });
    const subscription = await subscribed(hub, 1, 'now');
    write(1, 'x'.repeat(50));
    expect(subscription.pending).toBe(1);
    write(1, 'y');
    expect(subscription.closed?.reason).toBe('slow');
    const bytes = await subscribed(hub, 1, positionOf(0, 0));
    expect(await drain(bytes)).toEqual([1]);
    write(1, '1234');
    write(1, '5678');
    expect(bytes.closed).toBeUndefined();
    write(1, '90abc');
    expect(bytes.closed).toMatchObject({ reason: 'slow', position: '1-0-2' });
  });

  it('lets the route close a subscription at any time: a waiting next answers, nothing more is queued', async () => {
    const { hub, write } = setup();
    const subscription = await subscribed(hub, 1, 'now');
    write(1);
    const waiting = subscription.next({ timeoutMs: 60_000 });
    await waiting;
    const second = subscription.next({ timeoutMs: 60_000 });
    subscription.close('revoked');
    expect(await second).toEqual({
      events: [],
      position: '1-0-1',
      closed: { reason: 'revoked', position: '1-0-1' },
    });
    write(1);
    expect(subscription.pending).toBe(0);
    subscription.close('slow'); // a second close changes nothing
    expect(subscription.closed?.reason).toBe('revoked');
    expect(hub.stats()).toMatchObject({ subscribers: 0, projects: 0, droppedSlow: 0 });
  });

  it('continues after a position ahead of this replica (another one read further), skipping what it had', async () => {
    const { hub, write } = setup();
    write(1);
    const subscription = await subscribed(hub, 1, positionOf(0, 3));
    write(1);
    write(1);
    write(1);
    expect(await drain(subscription)).toEqual([]);
    write(1);
    expect(await drain(subscription)).toEqual([4]);
  });

  it('takes each offset once: redeliveries of the consumer are not published again', async () => {
    const { hub, write } = setup();
    const subscription = await subscribed(hub, 1, 'now');
    const event = write(1);
    expect(hub.publish(event)).toBe(false);
    expect(await drain(subscription)).toEqual([0]);
  });

  it('refuses a position of another partition, and a project whose partition is not read yet', async () => {
    const kafka = new FakeKafka();
    const hub = new StreamHub({
      partitionCount: 4,
      ring: { maxEvents: 10, maxBytes: 1000 },
      queue: { maxEvents: 10, maxBytes: 1000 },
      history: kafka,
    });
    const partition = partitionOf(7, 4);
    expect(await hub.subscribe(7, 'now')).toEqual({ kind: 'unavailable' });
    expect(hub.ready).toBe(false);
    for (let p = 0; p < 4; p++) hub.startPartition(p, 10);
    expect(hub.ready).toBe(true);
    expect(() => hub.startPartition(0, 10)).toThrow(/already started/);
    expect(() => hub.startPartition(4, 0)).toThrow(RangeError);
    const elsewhere = (partition + 1) % 4;
    expect(await hub.subscribe(7, positionOf(elsewhere, 12))).toEqual({
      kind: 'foreign',
      partition: elsewhere,
    });
    expect((await hub.subscribe(7, positionOf(partition, 9))).kind).toBe('subscribed');
  });

  it("drops an event that is not on its project's partition, and counts it", () => {
    const { hub } = setup({ partitionCount: 4 });
    const wrong = (partitionOf(7, 4) + 1) % 4;
    expect(
      hub.publish(
        streamEvent({ partition: wrong, offset: 0, projectId: 7, type: 'story.created', payload: '' }),
      ),
    ).toBe(false);
    expect(hub.stats().misplaced).toBe(1);
    expect(() => setup({ partitionCount: 0 })).toThrow(RangeError);
  });

  describe('older than the ring', () => {
    /** A ring of 5 events over a log of 20 (offsets 0..19, projects 1 and 2 alternating). */
    function aged(options: Partial<HubOptions> = {}) {
      const world = setup({ ring: { maxEvents: 5, maxBytes: 1e6 }, ...options });
      for (let i = 0; i < 20; i++) world.write(1 + (i % 2));
      expect(world.hub.stats().partitions[0]).toMatchObject({ coveredFrom: 15, head: 19 });
      return world;
    }

    it('is gone before the log start offset: no subscription', async () => {
      const { hub, kafka } = aged();
      kafka.earliest = 8;
      expect(await hub.subscribe(1, positionOf(0, 6))).toEqual({ kind: 'gone', earliest: 8 });
      expect(hub.stats()).toMatchObject({ gone: 1, subscribers: 0 });
      expect((await hub.subscribe(1, positionOf(0, 7))).kind).toBe('subscribed');
    });

    it('is unavailable when Kafka cannot say what it retains', async () => {
      const { hub, kafka } = aged();
      kafka.earliestFails = true;
      expect(await hub.subscribe(1, positionOf(0, 3))).toMatchObject({ kind: 'unavailable' });
      expect((await hub.subscribe(1, positionOf(0, 14))).kind).toBe('subscribed');
    });

    it('reads history up to the ring, then the ring, then live: in order, once each', async () => {
      const { hub, kafka, write } = aged();
      const subscription = await subscribed(hub, 1, positionOf(0, 3));
      expect(subscription.replaying).toBe(true);
      expect(await drain(subscription)).toEqual([4, 6, 8, 10, 12, 14, 16, 18]);
      expect(subscription.replaying).toBe(false);
      expect(kafka.reads).toEqual([{ partition: 0, projectId: 1, after: 3, upTo: 14 }]);
      write(2);
      write(1);
      expect(await drain(subscription)).toEqual([21]);
      expect(hub.stats().historyReads).toBe(0);
    });

    it('reads as fast as the subscriber takes, and reads again when the ring moved on meanwhile', async () => {
      const { hub, kafka, write } = aged({ queue: { maxEvents: 2, maxBytes: 1e6 } });
      let published = 0;
      kafka.beforeYield = () => {
        // During the history read: the ring evicts past its upper bound (15..19 → 25..29).
        if (published++ < 10) write(1 + (published % 2));
      };
      const subscription = await subscribed(hub, 1, positionOf(0, -1));
      const got = await drain(subscription, 1);
      const expected = kafka.log.filter((event) => event.projectId === 1).map((event) => event.offset);
      expect(got).toEqual(expected);
      // Round after round, each from where the last one ended, until the ring covers the rest.
      expect(kafka.reads[0]).toMatchObject({ after: -1, upTo: 14 });
      expect(kafka.reads.length).toBeGreaterThan(1);
      kafka.reads.slice(1).forEach((range, i) => expect(range.after).toBe(kafka.reads[i]!.upTo));
      write(1);
      expect(await drain(subscription)).toEqual([kafka.log.length - 1]);
    });

    it("falls back to history when a replaying subscriber's place leaves the ring", async () => {
      const { hub, kafka, write } = aged({ queue: { maxEvents: 1, maxBytes: 1e6 } });
      const subscription = await subscribed(hub, 2, positionOf(0, 14));
      expect((await subscription.next({ max: 1 })).events.map((event) => event.offset)).toEqual([15]);
      for (let i = 0; i < 10; i++) write(1 + (i % 2)); // 20..29: the ring is 25..29 now
      expect(await drain(subscription, 1)).toEqual([17, 19, 21, 23, 25, 27, 29]);
      expect(kafka.reads).toEqual([{ partition: 0, projectId: 2, after: 17, upTo: 24 }]);
    });

    it('closes as gone when retention deletes what it still has to read', async () => {
      const { hub, kafka } = aged({ queue: { maxEvents: 1, maxBytes: 1e6 } });
      const subscription = await subscribed(hub, 1, positionOf(0, 1));
      expect((await subscription.next()).events.map((event) => event.offset)).toEqual([2]);
      kafka.failWith = new HistoryGoneError(0, 9);
      const delivery = await subscription.next({ timeoutMs: 100 });
      expect(delivery.events.map((event) => event.offset)).toEqual([4]);
      const closed = await subscription.next({ timeoutMs: 100 });
      expect(closed.closed).toMatchObject({ reason: 'gone', position: '1-0-5' });
      expect(hub.stats()).toMatchObject({ gone: 1, historyReads: 0, subscribers: 0 });
    });

    it('closes with error when history cannot be read', async () => {
      const { hub, kafka } = aged();
      kafka.failWith = new Error('broker unreachable');
      const subscription = await subscribed(hub, 1, positionOf(0, 1));
      const delivery = await subscription.next({ timeoutMs: 100 });
      expect(delivery.closed).toMatchObject({ reason: 'error', position: '1-0-2' });
      expect((delivery.closed!.error as Error).message).toBe('broker unreachable');
    });

    it('frees the history read when the route closes it', async () => {
      const { hub, kafka } = aged({ queue: { maxEvents: 1, maxBytes: 1e6 } });
      const subscription = await subscribed(hub, 1, positionOf(0, -1));
      expect((await subscription.next()).events.map((event) => event.offset)).toEqual([0]);
      await tick();
      expect(hub.stats().historyReads).toBe(1);
      subscription.close('unsubscribed');
      await tick();
      expect(kafka.finished).toBe(1);
      expect(hub.stats()).toMatchObject({ historyReads: 0, subscribers: 0 });
    });

    it('closes everything at shutdown and refuses new subscriptions', async () => {
      const { hub } = aged();
      const live = await subscribed(hub, 1, 'now');
      const reading = await subscribed(hub, 2, positionOf(0, 0));
      hub.close();
      expect([live.closed?.reason, reading.closed?.reason]).toEqual(['shutdown', 'shutdown']);
      expect(await hub.subscribe(1, 'now')).toEqual({ kind: 'unavailable' });
      await tick();
      expect(hub.stats()).toMatchObject({ subscribers: 0, historyReads: 0 });
    });
  });

  it('counts subscribers per project', async () => {
    const { hub } = setup();
    const a = await subscribed(hub, 1, 'now');
    await subscribed(hub, 1, 'now');
    await subscribed(hub, 2, 'now');
    expect([hub.subscribers(1), hub.subscribers(2), hub.subscribers(3)]).toEqual([2, 1, 0]);
    a.close();
    expect(hub.stats()).toMatchObject({ subscribers: 2, projects: 2 });
  });

  it('delivers exactly once, in order, under random interleavings of writes, takes, slow closes and resumes', async () => {
    let seed = 42;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const { hub, kafka, write } = setup({
      ring: { maxEvents: 12, maxBytes: 1e6 },
      queue: { maxEvents: 4, maxBytes: 1e6 },
    });
    type Client = { projectId: number; subscription: Subscription; got: number[]; from: number };
    const clients: Client[] = [];
    const connect = async (projectId: number, from: number, got: number[] = []) => {
      clients.push({
        projectId,
        subscription: await subscribed(hub, projectId, positionOf(0, from)),
        got,
        from,
      });
    };
    for (let i = 0; i < 6; i++) await connect(1 + (i % 3), -1);
    for (let step = 0; step < 600; step++) {
      const roll = random();
      if (roll < 0.5) write(1 + Math.floor(random() * 3));
      else if (roll < 0.9) {
        const client = clients[Math.floor(random() * clients.length)]!;
        const delivery = await client.subscription.next({ max: 1 + Math.floor(random() * 3), timeoutMs: 0 });
        client.got.push(...delivery.events.map((event) => event.offset));
        if (delivery.closed) {
          clients.splice(clients.indexOf(client), 1);
          await connect(client.projectId, decodePosition(delivery.position)!.offset, client.got);
        }
      } else await tick();
    }
    for (const client of clients) {
      for (;;) {
        const delivery = await client.subscription.next({ timeoutMs: 20 });
        if (delivery.events.length === 0) break;
        client.got.push(...delivery.events.map((event) => event.offset));
      }
      const expected = kafka.log
        .filter((event) => event.projectId === client.projectId)
        .map((event) => event.offset);
      expect(client.got).toEqual(expected);
    }
    expect(hub.stats().droppedSlow).toBeGreaterThan(0);
    expect(kafka.reads.length).toBeGreaterThan(0);
  });
});
