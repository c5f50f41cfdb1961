import { Writable } from 'node:stream';
import type { Request, Response } from 'express';
import { XMLParser } from 'fast-xml-parser';
import { DomainError } from '@flowboard/service-kit';
import type { membership } from '@flowboard/proto';
import type { ProjectAccess } from '../../authz/access';
import { apiKeyHash } from '../../authz/credentials';
import {
  encodePosition,
  HistoryGoneError,
  partitionOf,
  streamEvent,
  StreamHub,
  type HistoryRange,
  type HistoryReader,
  type HubOptions,
  type StreamEvent,
} from '../../stream';
import type { Format } from '../../wire/negotiate';
import { renderProblem } from '../../wire/problem';
import { Query } from '../../wire/query';
import { renderBody, type Reply } from '../../wire/respond';
import { createCall } from '../call';
import type { RouteDeps, StreamRouteDeps } from './deps';
import { changeStream, type ChangeStream } from './event-stream';
import { eventHandlers } from './events.routes';
import { MAX_UNDECIDED_CHECKS } from './stream-access';

// The change stream's route driven as the pipeline drives it (createCall, then the handler), with a real StreamHub
// fed by hand and an in-memory response that records what goes out and can hold writes back like a slow client.

const KEY = '0123456789abcdef0123456789abcdef';
const USER = {
  id: 7,
  name: 'Gob Bluth',
  user_name: 'gob',
  email: 'gob@bluth.com',
} as membership.User__Output;
const PROJECT = 1;

/** Kafka's history as the hub sees it: a retention start, and reads a test scripts. */
class FakeHistory implements HistoryReader {
  earliest = 0;
  log: StreamEvent[] = [];
  /** Thrown after the first event a read yields. */
  failAfterFirst: Error | undefined;

  async earliestOffset(): Promise<number> {
    return this.earliest;
  }

  async *read(range: HistoryRange): AsyncIterable<StreamEvent> {
    let yielded = 0;
    for (const event of this.log) {
      if (event.offset <= range.after || event.offset > range.upTo || event.projectId !== range.projectId)
        continue;
      if (yielded++ > 0 && this.failAfterFirst) throw this.failAfterFirst;
      yield event;
    }
  }
}

/** Just enough of a ServerResponse: headers, status, and a body stream whose consumer can stall. */
class FakeResponse extends Writable {
  statusCode = 200;
  readonly headers = new Map<string, string | number>();
  readonly chunks: string[] = [];
  headersSent = false;
  private stalled = false;
  private held: Array<() => void> = [];

  constructor(highWaterMark = 16 * 1024) {
    super({ highWaterMark, decodeStrings: false });
  }

  status(code: number): this {
    this.statusCode = code;
    return this;
  }
  setHeader(name: string, value: string | number): this {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }
  getHeader(name: string) {
    return this.headers.get(name.toLowerCase());
  }
  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }
  override _write(chunk: unknown, _encoding: BufferEncoding, callback: () => void): void {
    this.headersSent = true;
    this.chunks.push(String(chunk));
    if (this.stalled) this.held.push(callback);
    else callback();
  }
  override _final(callback: () => void): void {
    this.headersSent = true;
    callback();
  }
  /** The client stops reading: writes are held until `resume`. */
  stall(): void {
    this.stalled = true;
  }
  resume(): void {
    this.stalled = false;
    for (const callback of this.held.splice(0)) callback();
  }
  get text(): string {
    return this.chunks.join('');
  }
}

interface Block {
  event?: string;
  id?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

/** The SSE blocks written so far (complete ones only). */
function blocks(text: string): Block[] {
  const complete = text.slice(0, text.lastIndexOf('\n\n') + 2);
  return complete
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const fields: Block = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(': ')) fields.comment = line.slice(2);
        else {
          const at = line.indexOf(': ');
          const name = line.slice(0, at) as keyof Block;
          fields[name] =
            fields[name] === undefined ? line.slice(at + 2) : `${fields[name]}\n${line.slice(at + 2)}`;
        }
      }
      return fields;
    });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** Every hub a test made: closed after it, which ends the streams it left open. */
const hubs: StreamHub[] = [];
afterEach(() => {
  for (const hub of hubs.splice(0)) hub.close();
});

interface Setup {
  partitionCount?: number;
  ringStart?: number;
  queue?: HubOptions['queue'];
  stream?: Partial<Omit<StreamRouteDeps, 'hub' | 'cacheEpoch'>>;
}

function setup(options: Setup = {}) {
  const history = new FakeHistory();
  const hub = new StreamHub({
    partitionCount: options.partitionCount ?? 1,
    ring: { maxEvents: 1_000, maxBytes: 1e7 },
    queue: options.queue ?? { maxEvents: 1_000, maxBytes: 1e7 },
    history,
  });
  hubs.push(hub);
  const ringStart = options.ringStart ?? 0;
  for (let partition = 0; partition < hub.options.partitionCount; partition++)
    hub.startPartition(partition, ringStart);
  const offsets = new Map<number, number>();
  /** The next change of a project, into the history and to the hub, as the feed would. */
  const write = (projectId = PROJECT, type: StreamEvent['type'] = 'story.updated', data: object = {}) => {
    const partition = partitionOf(projectId, hub.options.partitionCount);
    const offset = offsets.get(partition) ?? ringStart;
    offsets.set(partition, offset + 1);
    const payload = JSON.stringify({ id: `e${offset}`, type, project: { id: projectId, name: 'P' }, data });
    const event = streamEvent({ partition, offset, projectId, type, payload });
    history.log.push(event);
    hub.publish(event);
    return event;
  };

  let access: () => Promise<ProjectAccess> = async () => ({
    projectId: PROJECT,
    projectName: 'Sudden Valley',
    access: 'read',
    isOwner: false,
  });
  let authenticate: () => Promise<membership.User__Output> = async () => USER;
  const epochReads = { count: 0 };
  /** Access resolutions that answered and that threw. */
  const checks = { granted: 0, failed: 0 };
  const settings: StreamRouteDeps = {
    hub: () => hub,
    cacheEpoch: { refresh: async () => void epochReads.count++ },
    heartbeatMs: 1_000,
    accessRecheckMs: 60_000,
    maxStreamsPerKey: 10,
    longPollMaxWaitMs: 60_000,
    ...options.stream,
  };
  const stream: ChangeStream = changeStream(settings, {
    apiKeys: { authenticate: async () => ({ user: await authenticate() }) },
    access: {
      async resolve() {
        try {
          const granted = await access();
          checks.granted++;
          return granted;
        } catch (error) {
          checks.failed++;
          throw error;
        }
      },
    },
  });

  /** A GET of the route as the pipeline hands it over: authenticated, Read access checked. */
  const request = (
    opts: {
      accept?: string;
      search?: string;
      lastEventId?: string;
      method?: string;
      format?: Format;
      res?: FakeResponse;
    } = {},
  ) => {
    const res = opts.res ?? new FakeResponse();
    const req = {
      method: opts.method ?? 'GET',
      headers: {
        'x-zen-apikey': KEY,
        ...(opts.accept ? { accept: opts.accept } : {}),
        ...(opts.lastEventId !== undefined ? { 'last-event-id': opts.lastEventId } : {}),
      },
    } as unknown as Request;
    const call = createCall(
      req,
      res as unknown as Response,
      {
        route: { pattern: '/api/v1/projects/:projectId/events', params: { projectId: PROJECT } },
        format: opts.format ?? 'json',
        query: new Query(opts.search ?? ''),
        requestId: 'req-1',
        user: USER,
        project: { projectId: PROJECT, projectName: 'Sudden Valley', access: 'read', isOwner: false },
      },
      1024,
    );
    const done = stream.serve(call);
    return { res, done };
  };
  const sse = (opts: Parameters<typeof request>[0] = {}) => request({ accept: 'text/event-stream', ...opts });

  return {
    hub,
    history,
    write,
    stream,
    request,
    sse,
    epochReads,
    checks,
    grant(level: ProjectAccess['access']) {
      access = async () => ({
        projectId: PROJECT,
        projectName: 'Sudden Valley',
        access: level,
        isOwner: false,
      });
    },
    revokeAccess(error: unknown) {
      access = async () => {
        throw error;
      };
    },
    failKey(error: unknown) {
      authenticate = async () => {
        throw error;
      };
    },
  };
}

const payloadOf = (event: StreamEvent) => JSON.parse(event.payload) as unknown;

/** What a long-poll answered: its body parsed (JSON). */
async function polled(done: Promise<Reply>) {
  const reply = await done;
  const body = renderBody(reply, 'json');
  if (!body) throw new Error(`no body: ${reply.kind}`);
  return {
    contentType: body.contentType,
    ...(JSON.parse(body.body) as {
      events: Array<{ id: string; event: string; data: unknown }>;
      position: string;
    }),
  };
}

/** The problem a refused request answers, as the error handler renders it. */
async function refused(done: Promise<unknown>, format: Format = 'json') {
  const error = await done.then(
    () => {
      throw new Error('expected a refusal');
    },
    (err: unknown) => err,
  );
  if (!(error instanceof DomainError)) throw error;
  const problem = renderProblem(error, 'req-1', format);
  return {
    ...problem,
    json: format === 'json' ? (JSON.parse(problem.body) as Record<string, unknown>) : undefined,
  };
}

describe('GET P/events as server-sent events', () => {
  it('starts with retry and its position, then each change of the project in order: type, position, payload', async () => {
    const { sse, write, hub } = setup();
    write();
    const { res } = sse();
    await until('the first block', () => blocks(res.text).length === 1);
    expect(res.statusCode).toBe(200);
    expect(Object.fromEntries(res.headers)).toEqual({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    expect(blocks(res.text)[0]).toEqual({ retry: '3000', id: encodePosition({ partition: 0, offset: 0 }) });
    const a = write(PROJECT, 'story.created', { id: 1 });
    write(2, 'story.created');
    const b = write(PROJECT, 'story.moved', { id: 1, phase: 'Working' });
    const c = write(PROJECT, 'task.created', { text: 'line one\nline two' });
    await until('three changes', () => blocks(res.text).length === 4);
    expect(blocks(res.text).slice(1)).toEqual(
      [a, b, c].map((e) => ({ event: e.type, id: e.position, data: e.payload })),
    );
    expect(res.text).toContain(`event: story.moved\nid: ${b.position}\ndata: ${b.payload}\n\n`);
    expect(hub.subscribers(PROJECT)).toBe(1);
  });

  it('sends a keep-alive comment after heartbeatMs without changes', async () => {
    const { sse } = setup({ stream: { heartbeatMs: 20 } });
    const { res } = sse();
    await until(
      'two heartbeats',
      () => blocks(res.text).filter((b) => b.comment === 'keep-alive').length >= 2,
    );
    expect(blocks(res.text)[0]).toMatchObject({ retry: '3000' });
  });

  it('resumes by Last-Event-ID after a disconnect: the changes made meanwhile, no gap, no duplicate', async () => {
    const { sse, write, hub, stream } = setup();
    const first = sse({ search: 'from=now' });
    await until('the start', () => blocks(first.res.text).length === 1);
    const written = [write(), write(), write()];
    await until('three changes', () => blocks(first.res.text).length === 4);
    const lastId = blocks(first.res.text)[3]!.id!;
    first.res.destroy(); // the client goes away
    await first.done;
    expect(hub.subscribers(PROJECT)).toBe(0);
    expect(stream.slots.count(apiKeyHash(KEY))).toBe(0);

    written.push(write(), write());
    // EventSource reconnects with the URL it had (here `after=` an older position) and Last-Event-ID, which wins.
    const second = sse({ lastEventId: lastId, search: `after=${written[0]!.position}` });
    await until('the changes made meanwhile', () => blocks(second.res.text).length === 3);
    written.push(write());
    await until('a new change', () => blocks(second.res.text).length === 4);
    const ids = [...blocks(first.res.text).slice(1), ...blocks(second.res.text).slice(1)].map((b) => b.id);
    expect(ids).toEqual(written.map((e) => e.position));
    expect(blocks(second.res.text)[0]!.id).toBe(lastId);
    second.res.destroy();
    await second.done;
  });

  it('reads a position older than the ring from the history, then the ring, then live', async () => {
    const { sse, write, history, hub } = setup({ ringStart: 5 });
    // Offsets 2..4 were written before this replica's ring starts: only the history has them.
    for (let offset = 2; offset < 5; offset++) {
      history.log.push(
        streamEvent({
          partition: 0,
          offset,
          projectId: PROJECT,
          type: 'story.updated',
          payload: `{"n":${offset}}`,
        }),
      );
    }
    write();
    const { res, done } = sse({ search: `after=${encodePosition({ partition: 0, offset: 2 })}` });
    await until('history and ring', () => blocks(res.text).length === 4);
    write();
    await until('live', () => blocks(res.text).length === 5);
    expect(blocks(res.text).map((b) => b.id)).toEqual(
      [2, 3, 4, 5, 6].map((offset) => encodePosition({ partition: 0, offset })),
    );
    hub.close();
    await done;
  });

  it('refuses a malformed or foreign position before any byte: 400 naming it', async () => {
    const { sse, request } = setup({ partitionCount: 4 });
    for (const [opts, named] of [
      [{ lastEventId: 'garbage' }, 'Last-Event-ID'],
      [{ search: 'after=1-0-01' }, "'after'"],
      [{ search: 'after=' }, "'after'"],
      [{ search: 'from=yesterday' }, "'from'"],
      [{ search: 'after=1-0-1&after=1-0-2' }, "'after'"],
    ] as const) {
      const { res, done } = sse(opts);
      const problem = await refused(done);
      expect(problem.status).toBe(400);
      expect(problem.json).toMatchObject({ type: 'urn:flowboard:problem:invalid-parameter' });
      expect(problem.json?.detail).toContain(named);
      expect(res.chunks).toEqual([]);
      expect(res.headersSent).toBe(false);
    }
    const other = (partitionOf(PROJECT, 4) + 1) % 4;
    const foreign = encodePosition({ partition: other, offset: 0 });
    for (const opts of [{ lastEventId: foreign }, { search: `after=${foreign}` }]) {
      const problem = await refused(sse(opts).done);
      expect(problem.status).toBe(400);
      expect(problem.json?.detail).toContain("not one of this project's");
    }
    // The long-poll refuses the same, in its format.
    const xml = await refused(request({ search: 'after=nope', format: 'xml' }).done, 'xml');
    expect(xml.status).toBe(400);
    expect(xml.body).toContain('<type>urn:flowboard:problem:invalid-parameter</type>');
  });

  it('410 for a position older than the retained history, naming the oldest one still served', async () => {
    const { sse, request, history } = setup({ ringStart: 100 });
    history.earliest = 50;
    const position = encodePosition({ partition: 0, offset: 10 });
    const problem = await refused(sse({ lastEventId: position }).done);
    expect(problem.status).toBe(410);
    expect(problem.json).toMatchObject({
      type: 'urn:flowboard:problem:history-gone',
      title: 'Gone',
      status: 410,
      requestId: 'req-1',
    });
    expect(problem.json?.detail).toContain('from=now');
    expect(problem.json?.detail).toContain(encodePosition({ partition: 0, offset: 49 }));
    const xml = await refused(request({ search: `after=${position}`, format: 'xml' }).done, 'xml');
    expect(xml.status).toBe(410);
    expect(xml.body).toContain('<status>410</status>');
    // The oldest position served is still served.
    const { res, done } = sse({ search: `after=${encodePosition({ partition: 0, offset: 49 })}` });
    await until('the start', () => blocks(res.text).length === 1);
    res.destroy();
    await done;
  });

  it('ends with event: gone when retention deletes the history it is reading', async () => {
    const { sse, history } = setup({ ringStart: 100 });
    for (let offset = 10; offset < 13; offset++) {
      history.log.push(
        streamEvent({ partition: 0, offset, projectId: PROJECT, type: 'story.updated', payload: '{}' }),
      );
    }
    history.failAfterFirst = new HistoryGoneError(0, 60);
    const { res, done } = sse({ search: `after=${encodePosition({ partition: 0, offset: 9 })}` });
    await done;
    const [start, first, gone] = blocks(res.text);
    expect(start).toMatchObject({ retry: '3000' });
    expect(first).toMatchObject({ id: encodePosition({ partition: 0, offset: 10 }) });
    expect(gone).toMatchObject({ event: 'gone' });
    expect(gone!.id).toBeUndefined();
    expect(JSON.parse(gone!.data!)).toMatchObject({
      status: 410,
      type: 'urn:flowboard:problem:history-gone',
    });
    expect(res.writableEnded).toBe(true);
  });

  it('503 while the replica does not read the project partition, and without a hub at all', async () => {
    const hub = new StreamHub({
      partitionCount: 2,
      ring: { maxEvents: 10, maxBytes: 1e6 },
      queue: { maxEvents: 10, maxBytes: 1e6 },
      history: new FakeHistory(),
    });
    const stream = changeStream(
      {
        hub: () => hub,
        cacheEpoch: { refresh: async () => undefined },
        heartbeatMs: 1000,
        accessRecheckMs: 1000,
        maxStreamsPerKey: 1,
        longPollMaxWaitMs: 1000,
      },
      {
        apiKeys: { authenticate: async () => ({ user: USER }) },
        access: { resolve: async () => ({}) as ProjectAccess },
      },
    );
    const call = (res = new FakeResponse()) =>
      createCall(
        {
          method: 'GET',
          headers: { 'x-zen-apikey': KEY, accept: 'text/event-stream' },
        } as unknown as Request,
        res as unknown as Response,
        {
          route: { pattern: '/api/v1/projects/:projectId/events', params: { projectId: PROJECT } },
          format: 'json',
          query: new Query(''),
          requestId: 'req-1',
          user: USER,
          project: { projectId: PROJECT, projectName: 'P', access: 'read', isOwner: false },
        },
        1024,
      );
    const problem = await refused(stream.serve(call()));
    expect(problem.status).toBe(503);
    expect(problem.headers['Retry-After']).toBe('2');
    // Refused: its slot was given back (the cap is 1).
    expect(stream.slots.count(apiKeyHash(KEY))).toBe(0);
    // A gateway without a feed: no `stream` in its route dependencies.
    const none = eventHandlers({} as RouteDeps);
    expect((await refused(none.events(call()))).status).toBe(503);
  });

  it('closes a client too slow to take its changes with event: closed and the position to resume from', async () => {
    const { sse, write, hub } = setup({ queue: { maxEvents: 3, maxBytes: 1e7 } });
    const res = new FakeResponse(64);
    const { done } = sse({ res });
    await until('the start', () => blocks(res.text).length === 1);
    res.stall();
    // The first change is written but not taken: the stream waits for the client, the hub's queue fills.
    const written = [write(PROJECT, 'story.updated', { filler: 'x'.repeat(80) })];
    await until('the first change written', () => blocks(res.text).length === 2);
    for (let i = 0; i < 12; i++) written.push(write(PROJECT, 'story.updated', { filler: 'x'.repeat(80) }));
    await until('the hub closing it', () => hub.subscribers(PROJECT) === 0);
    res.resume();
    await done;
    const sent = blocks(res.text);
    const closed = sent[sent.length - 1]!;
    expect(closed.event).toBe('closed');
    const events = sent.filter((b) => b.event === 'story.updated');
    const data = JSON.parse(closed.data!) as { reason: string; position: string };
    expect(data).toEqual({ reason: 'slow', position: events[events.length - 1]!.id });
    expect(closed.id).toBe(data.position);
    expect(events.map((b) => b.id)).toEqual([written[0]!.position]);
    expect(res.writableEnded).toBe(true);
    expect(hub.stats().droppedSlow).toBe(1);
  });

  it('cuts off a client that takes nothing for two heartbeat periods', async () => {
    const { sse, write, hub, stream } = setup({ stream: { heartbeatMs: 20 } });
    const res = new FakeResponse(16);
    const { done } = sse({ res });
    await until('the start', () => blocks(res.text).length === 1);
    res.stall();
    write(PROJECT, 'story.updated', { filler: 'x'.repeat(100) });
    await done;
    expect(res.destroyed).toBe(true);
    expect(hub.subscribers(PROJECT)).toBe(0);
    expect(stream.slots.count(apiKeyHash(KEY))).toBe(0);
  });

  it('ends with event: closed (shutdown) when the hub closes', async () => {
    const { sse, write, hub } = setup();
    const { res, done } = sse();
    await until('the start', () => blocks(res.text).length === 1);
    const last = write();
    await until('the change', () => blocks(res.text).length === 2);
    hub.close();
    await done;
    const closed = blocks(res.text)[2]!;
    expect(closed).toEqual({
      event: 'closed',
      id: last.position,
      data: JSON.stringify({ reason: 'shutdown', position: last.position }),
    });
    expect(res.writableEnded).toBe(true);
  });

  it('unsubscribes as soon as the client leaves', async () => {
    const { sse, hub, stream } = setup();
    const { res, done } = sse();
    await until('the start', () => blocks(res.text).length === 1);
    expect(hub.subscribers(PROJECT)).toBe(1);
    res.destroy();
    await until('unsubscribed', () => hub.subscribers(PROJECT) === 0);
    await done;
    expect(stream.slots.count(apiKeyHash(KEY))).toBe(0);
  });

  it('answers HEAD with the stream headers and nothing else', async () => {
    const { sse, hub } = setup();
    const { res, done } = sse({ method: 'HEAD' });
    expect((await done).kind).toBe('handled');
    expect(res.statusCode).toBe(200);
    expect(res.getHeader('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.writableEnded).toBe(true);
    expect(hub.subscribers(PROJECT)).toBe(0);
  });
});

describe('GET P/events access while open', () => {
  it('ends with event: revoked when the caller is removed from the project', async () => {
    const t = setup({ stream: { accessRecheckMs: 15 } });
    const { res, done } = t.sse();
    await until('the start', () => blocks(res.text).length === 1);
    await sleep(40); // a few checks that pass
    expect(res.writableEnded).toBe(false);
    t.revokeAccess(new DomainError('NotFound', 'No such project.'));
    await done;
    const revoked = blocks(res.text).pop()!;
    expect(revoked.event).toBe('revoked');
    expect(JSON.parse(revoked.data!)).toMatchObject({ status: 404, type: 'urn:flowboard:problem:not-found' });
    expect(res.writableEnded).toBe(true);
    expect(t.hub.subscribers(PROJECT)).toBe(0);
    expect(t.stream.slots.count(apiKeyHash(KEY))).toBe(0);
    expect(t.epochReads.count).toBeGreaterThan(0);
  });

  it('ends with event: revoked when the key is deleted (401)', async () => {
    const t = setup({ stream: { accessRecheckMs: 10 } });
    const { res, done } = t.sse();
    await until('the start', () => blocks(res.text).length === 1);
    t.failKey(new DomainError('Unauthenticated', 'The API key is not valid.'));
    await done;
    const revoked = blocks(res.text).pop()!;
    expect(revoked.event).toBe('revoked');
    expect(JSON.parse(revoked.data!)).toMatchObject({
      status: 401,
      type: 'urn:flowboard:problem:unauthorized',
    });
  });

  it('ends with event: revoked when the access drops below Read (403)', async () => {
    const t = setup({ stream: { accessRecheckMs: 10 } });
    t.grant('readwrite');
    const { res, done } = t.sse();
    await until('the start', () => blocks(res.text).length === 1);
    await sleep(30);
    expect(res.writableEnded).toBe(false);
    t.grant('none'); // a member whose roles give no access
    await done;
    const revoked = blocks(res.text).pop()!;
    expect(revoked.event).toBe('revoked');
    expect(JSON.parse(revoked.data!)).toMatchObject({ status: 403, type: 'urn:flowboard:problem:forbidden' });
  });

  it(`closes (error) after ${MAX_UNDECIDED_CHECKS} checks in a row that could not decide, not before`, async () => {
    const t = setup({ stream: { accessRecheckMs: 40 } });
    const { res, done } = t.sse();
    await until('the start', () => blocks(res.text).length === 1);
    t.revokeAccess(new DomainError('Unavailable', 'membership is down'));
    await until('two failed checks', () => t.checks.failed === MAX_UNDECIDED_CHECKS - 1);
    expect(res.writableEnded).toBe(false);
    // One that decides in between starts the count again.
    t.grant('read');
    await until('a check that passes', () => t.checks.granted > 0);
    t.revokeAccess(new DomainError('Unavailable', 'membership is down'));
    await until('two more failed checks', () => t.checks.failed === 2 * (MAX_UNDECIDED_CHECKS - 1));
    expect(res.writableEnded).toBe(false);
    await done;
    expect(t.checks.failed).toBe(2 * (MAX_UNDECIDED_CHECKS - 1) + 1);
    const closed = blocks(res.text).pop()!;
    expect(closed.event).toBe('closed');
    expect(JSON.parse(closed.data!)).toMatchObject({ reason: 'error' });
  });

  it('a long-poll whose access is lost while it waits answers the refusal', async () => {
    const t = setup({ stream: { accessRecheckMs: 10 } });
    const { done } = t.request({ search: 'wait=5' });
    t.revokeAccess(new DomainError('NotFound', 'No such project.'));
    expect((await refused(done)).status).toBe(404);
    expect(t.hub.subscribers(PROJECT)).toBe(0);
  });
});

describe('GET P/events by long-poll', () => {
  it('answers the changes after the position, at most limit, and where to continue (JSON)', async () => {
    const { request, write, hub } = setup();
    const start = encodePosition({ partition: 0, offset: -1 });
    const written = [write(), write(2), write(PROJECT, 'story.moved'), write()];
    const first = await polled(request({ search: `after=${start}&limit=2` }).done);
    expect(first.contentType).toBe('application/json; charset=utf-8');
    expect(first).toMatchObject({
      events: [written[0], written[2]].map((e) => ({ id: e!.position, event: e!.type, data: payloadOf(e!) })),
      position: written[2]!.position,
    });
    const second = await polled(request({ search: `after=${first.position}&limit=2` }).done);
    expect(second.events.map((e) => e.id)).toEqual([written[3]!.position]);
    expect(second.position).toBe(written[3]!.position);
    const third = await polled(request({ search: `after=${second.position}` }).done);
    expect(third).toMatchObject({ events: [], position: second.position });
    expect(hub.subscribers(PROJECT)).toBe(0);
  });

  it('splices each payload into the JSON as it is', async () => {
    const { request, write } = setup();
    const event = write(PROJECT, 'story.created', { text: 'ünïcode "quoted"\n' });
    const reply = await request({ search: `after=${encodePosition({ partition: 0, offset: -1 })}` }).done;
    expect(renderBody(reply, 'json')!.body).toBe(
      `{"events":[{"id":"${event.position}","event":"story.created","data":${event.payload}}],"position":"${event.position}"}`,
    );
  });

  it('answers XML: <stream> with <events><event> items, children in alphabetical order', async () => {
    const { request, write } = setup();
    const event = write(PROJECT, 'story.created', {
      id: 3,
      text: 'Buy boat "The Sea Word" & <more>',
      tags: [{ id: 1, name: 'come on' }],
      members: [],
      odd: [1, 2],
      owner: null,
    });
    const reply = await request({
      format: 'xml',
      search: `after=${encodePosition({ partition: 0, offset: -1 })}`,
    }).done;
    const body = renderBody(reply, 'xml')!;
    expect(body.contentType).toBe('application/xml; charset=utf-8');
    expect(body.body).toBe(
      '<?xml version="1.0" encoding="utf-8"?><stream><events><event><data>' +
        '<data><id>3</id><members /><odd><item>1</item><item>2</item></odd><tags><tag><id>1</id><name>come on</name></tag></tags>' +
        '<text>Buy boat "The Sea Word" &amp; &lt;more&gt;</text></data>' +
        '<id>e0</id><project><id>1</id><name>P</name></project><type>story.created</type>' +
        `</data><event>story.created</event><id>${event.position}</id></event></events>` +
        `<position>${event.position}</position></stream>`,
    );
    expect(new XMLParser().parse(body.body)).toMatchObject({ stream: { position: event.position } });
    const empty = await request({ format: 'xml' }).done;
    expect(renderBody(empty, 'xml')!.body).toBe(
      `<?xml version="1.0" encoding="utf-8"?><stream><events /><position>${event.position}</position></stream>`,
    );
  });

  it('waits for the first change up to wait seconds, answering as soon as it comes', async () => {
    const { request, write } = setup();
    const started = Date.now();
    const { done } = request({ search: 'from=now&wait=30' });
    await sleep(20);
    const event = write();
    const answer = await polled(done);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(answer.events.map((e) => e.id)).toEqual([event.position]);
  });

  it('answers at once without wait, and after wait seconds with nothing when nothing comes', async () => {
    const { request } = setup({ stream: { longPollMaxWaitMs: 30 } });
    const now = await polled(request().done);
    expect(now).toEqual({ contentType: 'application/json; charset=utf-8', events: [], position: '1-0-0' });
    const started = Date.now();
    // wait=1 asks a second; the server waits at most longPollMaxWaitMs.
    const waited = await polled(request({ search: 'wait=1' }).done);
    expect(waited.events).toEqual([]);
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('waits for a history read even with wait=0', async () => {
    const { request, history } = setup({ ringStart: 5 });
    history.log.push(
      streamEvent({ partition: 0, offset: 3, projectId: PROJECT, type: 'story.updated', payload: '{}' }),
    );
    const answer = await polled(
      request({ search: `after=${encodePosition({ partition: 0, offset: 1 })}` }).done,
    );
    expect(answer.events.map((e) => e.id)).toEqual([encodePosition({ partition: 0, offset: 3 })]);
  });

  it('refuses limit and wait out of range, naming them', async () => {
    const { request } = setup();
    for (const [search, named] of [
      ['limit=0', "'limit'"],
      ['limit=1001', "'limit'"],
      ['limit=ten', "'limit'"],
      ['limit=', "'limit'"],
      ['wait=61', "'wait'"],
      ['wait=-1', "'wait'"],
      ['wait=0.5', "'wait'"],
      ['wait=1&wait=2', "'wait'"],
    ]) {
      const problem = await refused(request({ search }).done);
      expect([search, problem.status]).toEqual([search, 400]);
      expect(problem.json?.detail).toContain(named);
    }
    await expect(polled(request({ search: 'limit=1000&wait=0' }).done)).resolves.toMatchObject({
      events: [],
    });
  });
});

describe('GET P/events: open streams per key', () => {
  it('refuses one beyond maxStreamsPerKey with 429 and Retry-After; long-polls count while they wait', async () => {
    const { sse, request, write, stream } = setup({ stream: { maxStreamsPerKey: 2 } });
    const one = sse();
    const poll = request({ search: 'wait=30' });
    await until('both open', () => stream.slots.count(apiKeyHash(KEY)) === 2);
    for (const attempt of [sse(), request()]) {
      const problem = await refused(attempt.done);
      expect(problem.status).toBe(429);
      expect(problem.headers['Retry-After']).toBe('10');
      expect(problem.json).toMatchObject({ type: 'urn:flowboard:problem:rate-limited' });
      expect(attempt.res.chunks).toEqual([]);
    }
    write(); // the long-poll answers: its slot is free again
    await polled(poll.done);
    expect(stream.slots.count(apiKeyHash(KEY))).toBe(1);
    const two = sse();
    await until('the new stream', () => blocks(two.res.text).length >= 1);
    expect((await refused(sse().done)).status).toBe(429);
    one.res.destroy();
    await one.done;
    const three = sse();
    await until('another', () => blocks(three.res.text).length >= 1);
    two.res.destroy();
    three.res.destroy();
    await Promise.all([two.done, three.done]);
    expect(stream.slots.count(apiKeyHash(KEY))).toBe(0);
    expect(stream.slots.keys).toBe(0);
  });
});
