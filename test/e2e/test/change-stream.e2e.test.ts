import { EventStreamClient, WebhookReceiver, type ServerSentEvent } from '@flowboard/testing';
import { api, createProject, GATEWAY_URL, signUp, XML_HEADERS, type SignedUp } from './support';

/**
 * The change stream end to end (issue 27): changes made through the API reach an SSE subscriber through the
 * services' outboxes, Kafka and the gateway's feed, in order, each with the very payload its webhook delivery
 * carries; a client that drops and resumes with Last-Event-ID misses nothing and gets nothing twice; the long-poll
 * serves the same feed in JSON and XML; a subscriber whose access goes is cut off; streams per key are capped.
 */
jest.setTimeout(120_000);

let owner: SignedUp;
let project: { id: number; name: string };
let receiver: WebhookReceiver;
const P = () => `/api/v1/projects/${project.id}`;
const streamUrl = (query = '') => `${GATEWAY_URL}${P()}/events${query}`;
const open: EventStreamClient[] = [];

/** Opens an SSE stream of the project as `key`; closed after the tests. */
async function subscribe(
  key: string,
  headers: Record<string, string> = {},
  query = '',
): Promise<EventStreamClient> {
  const client = await EventStreamClient.open(streamUrl(query), { 'X-Zen-ApiKey': key, ...headers });
  open.push(client);
  return client;
}

/** Each write's `Flowboard-Changes` (the event ids of the changes it made), in the order the writes were made. */
const named: string[][] = [];

const call = async (path: string, init: Parameters<typeof api>[1] = {}) => {
  const res = await api(path, { key: owner.key, ...init });
  if (res.status !== 200) throw new Error(`${init.method ?? 'GET'} ${path} → ${res.status} ${res.text}`);
  const changes = res.headers.get('flowboard-changes');
  if (init.method && init.method !== 'GET') named.push(changes ? changes.split(',') : []);
  else expect(changes).toBeNull();
  return res.json;
};

/** The stream's changes (not its `closed`/`revoked` notices), as their payloads. */
const changes = (events: ServerSentEvent[]) =>
  events.filter((e) => e.id && e.event.includes('.')).map((e) => ({ ...e, payload: JSON.parse(e.data) }));

beforeAll(async () => {
  owner = await signUp('stream');
  project = await createProject(owner.key, 'Stream');
  receiver = await WebhookReceiver.start();
  await call(`${P()}/webhooks`, { method: 'POST', body: { url: receiver.url('/all'), description: 'all' } });
});
afterAll(async () => {
  for (const client of open) client.close();
  await receiver?.close();
});

describe('the change stream', () => {
  it("pushes every change in order, each with its webhook delivery's payload, byte for byte", async () => {
    const stream = await subscribe(owner.key);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const phases = (await call(`${P()}?with=phases`)).phases as Array<{ id: number }>;
    const story = await call(`${P()}/stories`, { method: 'POST', body: { text: 'Build the model home' } });
    const S = `${P()}/stories/${story.id}`;
    await call(S, { method: 'PUT', body: { text: 'Build the model home, quickly' } });
    await call(S, { method: 'PUT', body: { phase: phases[1]!.id } });
    await call(S, { method: 'PUT', body: { status: 'blocked', blockedReason: 'Termites' } });
    const task = await call(`${S}/tasks`, { method: 'POST', body: { text: 'Buy a seal' } });
    await call(`${S}/tasks/${task.id}`, { method: 'PUT', body: { status: 'complete' } });
    await call(`${S}/comments`, { method: 'POST', body: { text: 'Huge mistake' } });
    const tag = await call(`${P()}/tags`, { method: 'POST', body: { name: `urgent-${story.id}` } });
    await call(`${P()}/tags/${tag.id}/stories`, { method: 'POST', body: { id: story.id } });
    await call(`${P()}/phases`, { method: 'POST', body: { name: 'Inspection', description: '' } }); // before Archive: it moves too
    await call(`${P()}/tags/${tag.id}`, { method: 'PUT', body: { name: `hot-${story.id}` } });
    const role = await call(`${P()}/roles`, {
      method: 'POST',
      body: { name: 'Builders', access: 'readwrite' },
    });
    await call(`${P()}/invites`, {
      method: 'POST',
      body: { email: `stream-${story.id}@example.test`, role: role.id },
    });
    const form = new FormData();
    form.append('file', new Blob(['floor plan'], { type: 'text/plain' }), 'plans.txt');
    await call(`${S}/attachments`, { method: 'POST', body: form });
    await call(S, { method: 'DELETE' });

    // Each service's outbox publishes its changes in order, so a project's changes from one service arrive in the
    // order they were made; boards' (the story, its tasks, comments and tags), files' and membership's interleave
    // as their outboxes published them.
    const expected = ['story.deleted', 'attachment.created', 'role.created', 'invite.created'];
    const got = await stream.waitFor(
      (events) =>
        expected.every((type) => changes(events).some((e) => e.event === type)) ? changes(events) : undefined,
      `${expected.join(', ')} on the stream`,
    );
    const fromBoards = got.filter((e) =>
      ['story', 'task', 'comment', 'tag', 'phase'].includes(e.event.split('.')[0]!),
    );
    // In the order the writes were made, each write's events together.
    const boardsWrites = [
      ['story.created'],
      ['story.updated'],
      ['story.moved'],
      ['story.blocked'],
      ['task.created'],
      ['task.updated'],
      ['comment.created'],
      ['tag.created'],
      ['story.tagged'],
      ['phase.created', 'phase.updated'], // Inspection, then Archive, whose index it shifted
      ['tag.updated'],
    ];
    expect(fromBoards.map((e) => e.event)).toEqual([...boardsWrites.flat(), 'story.deleted']);
    const [inspection, archive] = fromBoards.filter((e) => e.event.startsWith('phase.'));
    expect(inspection!.payload.data).toMatchObject({ name: 'Inspection', index: phases.length - 1 });
    expect(archive!.payload.data).toMatchObject({
      id: phases.at(-1)!.id,
      name: 'Archive',
      index: phases.length,
    });
    expect(fromBoards.find((e) => e.event === 'tag.updated')!.payload.data).toEqual({
      id: tag.id,
      name: `hot-${story.id}`,
    });
    expect(got.map((e) => e.event).sort()).toEqual(
      [...fromBoards.map((e) => e.event), ...expected.slice(1)].sort(),
    );
    // Positions increase; `event:` is the payload's type.
    for (const e of got) expect(e.payload.type).toBe(e.event);
    expect(new Set(got.map((e) => e.id)).size).toBe(got.length);

    // The same bytes as the webhook's deliveries of the same events.
    const delivered = await receiver.waitFor((requests) => {
      const byId = new Map(requests.map((r) => [JSON.parse(r.body).id as string, r.body]));
      return got.every((e) => byId.has(e.payload.id)) ? byId : undefined;
    }, 'a webhook delivery of every streamed event');
    for (const e of got) expect(e.data).toBe(delivered.get(e.payload.id));

    // Read your own writes: each write's answer named its changes, and they are exactly the stream's events (the
    // webhook's, made in beforeAll, aside: a webhook is not a change the stream shows).
    const writes = named.slice(1);
    expect(writes.flat().sort()).toEqual(got.map((e) => e.payload.id).sort());
    const typeOf = new Map(got.map((e) => [e.payload.id, e.event]));
    expect(writes.map((ids) => ids.map((id) => typeOf.get(id)))).toEqual([
      ...boardsWrites,
      ['role.created'],
      ['invite.created'],
      ['attachment.created'],
      ['story.deleted'],
    ]);
    stream.close();
  });

  it('resumes after a dropped connection with Last-Event-ID: nothing missed, nothing twice', async () => {
    const witness = await subscribe(owner.key); // stays connected throughout
    const dropping = await subscribe(owner.key);
    const texts = Array.from({ length: 12 }, (_, i) => `burst ${i}`);
    const made: number[] = [];
    for (const [i, text] of texts.entries()) {
      made.push((await call(`${P()}/stories`, { method: 'POST', body: { text } })).id);
      if (i === 4) {
        await dropping.waitFor((events) => (changes(events).length >= 3 ? true : undefined), 'three changes');
        dropping.close();
      }
    }
    const lastSeen = changes(dropping.events).at(-1)!;
    const resumed = await subscribe(owner.key, { 'Last-Event-ID': lastSeen.id! });
    const createdIds = (events: ServerSentEvent[]) =>
      changes(events)
        .filter((e) => e.event === 'story.created')
        .map((e) => e.payload.data.id as number);
    await witness.waitFor(
      (events) => (createdIds(events).length === made.length ? true : undefined),
      'every story',
    );
    await resumed.waitFor(
      (events) => (createdIds(events).includes(made.at(-1)!) ? true : undefined),
      'the last story on the resumed stream',
    );
    expect(createdIds(witness.events)).toEqual(made);
    // Before the drop, then after the resume: exactly the witness's sequence.
    const joined = [...changes(dropping.events), ...changes(resumed.events)].map((e) => e.id);
    expect(joined).toEqual(changes(witness.events).map((e) => e.id));
  });

  it('serves the same feed by long-polling, in JSON and in XML', async () => {
    const start = await call(`${P()}/events`); // from now: no events yet, and the position to go on from
    expect(start.events).toEqual([]);
    const story = await call(`${P()}/stories`, { method: 'POST', body: { text: 'Polled' } });
    const polled = await call(`${P()}/events?after=${start.position}&wait=20`);
    expect(polled.events.map((e: { event: string }) => e.event)).toEqual(['story.created']);
    expect(polled.events[0].data).toMatchObject({
      type: 'story.created',
      data: { id: story.id, text: 'Polled' },
    });
    expect(polled.position).toBe(polled.events[0].id);
    const nothingNew = await call(`${P()}/events?after=${polled.position}&wait=1`);
    expect(nothingNew).toEqual({ events: [], position: polled.position });

    const xml = await api(`${P()}/events?after=${start.position}&limit=1`, {
      key: owner.key,
      headers: XML_HEADERS,
    });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<stream>');
    expect(xml.text).toContain(`<id>${polled.position}</id>`);
    expect(xml.text).toContain('<event>story.created</event>');
    expect(xml.text).toContain('<text>Polled</text>');
  });

  it('refuses a malformed position (400), and one of another project (400)', async () => {
    const malformed = await api(`${P()}/events?after=yesterday`, { key: owner.key });
    expect(malformed.status).toBe(400);
    const other = await api(`${P()}/events?after=1-zz-1`, { key: owner.key });
    expect(other.status).toBe(400);
  });

  it('takes the key as the apikey query parameter (EventSource sends no headers)', async () => {
    const client = await EventStreamClient.open(streamUrl(`?apikey=${encodeURIComponent(owner.key)}`));
    open.push(client);
    expect(client.response.status).toBe(200);
    await call(`${P()}/stories`, { method: 'POST', body: { text: 'Seen by a browser' } });
    await client.waitFor(
      (events) =>
        changes(events).some((e) => e.payload.data.text === 'Seen by a browser') ? true : undefined,
      'the story',
    );
  });

  it('cuts off a member who is removed, and a key that is deleted, within seconds', async () => {
    const member = await signUp('stream-member');
    await call(`${P()}/members`, { method: 'POST', body: { id: member.id } });
    const memberStream = await subscribe(member.key);
    expect(memberStream.response.status).toBe(200);
    const removedAt = Date.now();
    await call(`${P()}/members/${member.id}`, { method: 'DELETE' });
    await memberStream.waitForEnd('the removed member’s stream to end', 20_000);
    expect(memberStream.events.at(-1)?.event).toBe('revoked');
    const cutAfterMs = Date.now() - removedAt;
    expect(cutAfterMs).toBeLessThan(15_000);
    expect((await api(`${P()}/events`, { key: member.key })).status).not.toBe(200);

    const extra = await call('/api/v1/me/apikeys', { method: 'POST' });
    const keyStream = await subscribe(extra.key);
    expect(keyStream.response.status).toBe(200);
    await call(`/api/v1/me/apikeys/${extra.id}`, { method: 'DELETE' });
    await keyStream.waitForEnd('the deleted key’s stream to end', 20_000);
    expect(keyStream.events.at(-1)?.event).toBe('revoked');
  });

  it('caps the open streams of one key (429 beyond it), and frees a slot when one closes', async () => {
    const key = (await call('/api/v1/me/apikeys', { method: 'POST' })).key as string;
    const streams: EventStreamClient[] = [];
    for (let i = 0; i < 10; i++) streams.push(await subscribe(key));
    expect(streams.map((s) => s.response.status)).toEqual(Array(10).fill(200));
    const refused = await subscribe(key);
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get('retry-after')).toBeTruthy();
    streams[0]!.close();
    let again: EventStreamClient | undefined;
    for (let attempt = 0; attempt < 20 && again?.response.status !== 200; attempt++) {
      await new Promise((r) => setTimeout(r, 100));
      again = await subscribe(key);
    }
    expect(again?.response.status).toBe(200);
    for (const s of streams) s.close();
  });
});
