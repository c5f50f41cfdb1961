import {
  accessLadder,
  accessMatrix,
  api,
  childNames,
  createProject,
  signUp,
  XML_HEADERS,
  type SignedUp,
} from './support';

/**
 * Bulk writes (README "Bulk"): `POST P/stories/bulk` and `PUT P/stories/bulk` over the real stack, in JSON and XML:
 * each story's outcome, `atomic`, each story's `ifMatch`, `Idempotency-Key` on the whole request, one event per story,
 * and a bulk update racing single updates with `If-Match`. The corners of each outcome are boards' integration tests
 * (bulk.grpc.int.test.ts).
 */
jest.setTimeout(60_000);

interface Result {
  index: number;
  status: number;
  story?: {
    id: number;
    text: string;
    color: string;
    phase: { id: number; name: string };
    size: string;
    tags?: Array<{ name: string }>;
  };
  problem?: { type: string; status: number; detail: string };
}

describe('bulk story writes', () => {
  let owner: SignedUp;
  let project: { id: number; name: string };
  let phases: Array<{ id: number; name: string }>;
  const P = () => `/api/v1/projects/${project.id}`;
  const bulk = (
    method: 'POST' | 'PUT',
    body: unknown,
    extra: { query?: string; headers?: Record<string, string> } = {},
  ) =>
    api(`${P()}/stories/bulk${extra.query ?? ''}`, { key: owner.key, method, body, headers: extra.headers });

  beforeAll(async () => {
    owner = await signUp('bulk');
    project = await createProject(owner.key, 'Bulk');
    phases = (await api(`${P()}/phases`, { key: owner.key })).json.items;
  });

  it('creates stories in one request, each as POST P/stories would, and answers each outcome in order', async () => {
    const res = await bulk(
      'POST',
      {
        stories: [
          { text: 'Bulk one', color: 'red', tags: ['bulk'] },
          { text: 'Bulk two', phase: phases[1]!.name, tasks: [{ text: 'a task' }] },
          { color: 'blue' }, // no text: its own 400
          { text: 'Bulk four', owner: 'nobody-here' }, // not a member: its own 400
        ],
      },
      { query: '?with=tags' },
    );
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ atomic: false, done: 2, failed: 2 });
    const results = res.json.results as Result[];
    expect(results.map((r) => [r.index, r.status])).toEqual([
      [0, 200],
      [1, 200],
      [2, 400],
      [3, 400],
    ]);
    expect(results[0]!.story).toMatchObject({
      text: 'Bulk one',
      color: 'red',
      tags: [expect.objectContaining({ name: 'bulk' })],
    });
    expect(results[1]!.story!.phase.name).toBe(phases[1]!.name);
    expect(results[2]!.problem).toMatchObject({ type: 'urn:flowboard:problem:invalid-field', status: 400 });
    expect(results[2]!.problem!.detail).toContain('text');
    expect(results[3]!.problem).toMatchObject({ type: 'urn:flowboard:problem:invalid-reference' });
    // The stories are there, numbered in request order.
    const one = await api(`${P()}/stories/${results[0]!.story!.id}`, { key: owner.key });
    expect(one.json.text).toBe('Bulk one');
    expect(results[1]!.story!.id).toBe(results[0]!.story!.id + 1);
  });

  it('atomic: one story that fails does none, and the others say why', async () => {
    const before = (await api(`${P()}/stories`, { key: owner.key })).json.totalItems;
    const res = await bulk('POST', {
      atomic: true,
      stories: [{ text: 'fine' }, { text: 'bad', color: 'mauve' }, { text: 'fine too' }],
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ atomic: true, done: 0, failed: 3 });
    expect((res.json.results as Result[]).map((r) => [r.status, r.problem?.type])).toEqual([
      [424, 'urn:flowboard:problem:not-applied'],
      [400, 'urn:flowboard:problem:invalid-field'],
      [424, 'urn:flowboard:problem:not-applied'],
    ]);
    expect((res.json.results as Result[])[0]!.problem!.detail).toContain('story 1');
    expect((await api(`${P()}/stories`, { key: owner.key })).json.totalItems).toBe(before);
  });

  it('updates chosen stories, changing only the fields each sends, with ifMatch and tags per story', async () => {
    const made = (
      await bulk('POST', { stories: [{ text: 'u1', details: 'keep me' }, { text: 'u2' }, { text: 'u3' }] })
    ).json.results as Result[];
    const [a, b, c] = made.map((r) => r.story!.id) as [number, number, number];
    const etagOf = async (id: number) =>
      (await api(`${P()}/stories/${id}`, { key: owner.key })).headers.get('etag')!;
    const res = await bulk(
      'PUT',
      {
        stories: [
          { id: a, ifMatch: await etagOf(a), phase: phases[2]!.id, color: 'green', tags: ['moved'] },
          { id: b, ifMatch: '"v99-0000000000000000"', color: 'green' },
          { id: c, size: 8 },
          { id: 999_999, color: 'green' },
        ],
      },
      { query: '?with=details,tags' },
    );
    expect(res.status).toBe(200);
    const results = res.json.results as Result[];
    expect(results.map((r) => r.status)).toEqual([200, 412, 200, 404]);
    expect(results[0]!.story).toMatchObject({
      color: 'green',
      phase: { id: phases[2]!.id },
      details: 'keep me',
    });
    expect(results[0]!.story!.tags!.map((t) => t.name)).toEqual(['moved']);
    expect(results[2]!.story).toMatchObject({ size: '8', color: 'grey', text: 'u3' });
    expect((await api(`${P()}/stories/${b}`, { key: owner.key })).json.color).toBe('grey');
  });

  it('answers 400 for the request itself: no stories, more than 100, a story named twice', async () => {
    expect((await bulk('POST', { stories: [] })).status).toBe(400);
    const many = await bulk('POST', { stories: Array.from({ length: 101 }, (_, i) => ({ text: `s${i}` })) });
    expect(many.status).toBe(400);
    expect(many.json.detail).toContain('at most 100');
    const made = (await bulk('POST', { stories: [{ text: 'twice' }] })).json.results[0].story.id;
    const twice = await bulk('PUT', {
      stories: [
        { id: made, color: 'red' },
        { id: made, size: 1 },
      ],
    });
    expect(twice.status).toBe(400);
    expect(twice.json.detail).toContain('named twice');
    expect((await bulk('PUT', { stories: [{ color: 'red' }] })).json.results[0].status).toBe(400); // no id
  });

  it('works in XML', async () => {
    const res = await api(`${P()}/stories/bulk`, {
      key: owner.key,
      method: 'POST',
      headers: { ...XML_HEADERS, 'Content-Type': 'application/xml' },
      body: '<bulk><atomic>false</atomic><stories><story><text>xml one</text></story><story><text>xml two</text><color>purple</color></story></stories></bulk>',
    });
    expect(res.status).toBe(200);
    expect(childNames(res.text, 'bulkResult')).toEqual(['atomic', 'done', 'failed', 'results']);
    expect(res.text).toContain('<done>2</done>');
    expect(res.text).toMatch(/<result><index>0<\/index><status>200<\/status><story>.*<text>xml one<\/text>/);
    // A story's own id follows its creator's (children in alphabetical order).
    const ids = [...res.text.matchAll(/<\/creator><id>(\d+)<\/id>/g)].map((m) => Number(m[1]));
    const update = await api(`${P()}/stories/bulk`, {
      key: owner.key,
      method: 'PUT',
      headers: { ...XML_HEADERS, 'Content-Type': 'application/xml' },
      body: `<bulk><stories><story><id>${ids[0]}</id><color>teal</color><tags><tag>xml-tag</tag></tags></story></stories></bulk>`,
    });
    expect(update.status).toBe(200);
    expect(update.text).toContain('<color>teal</color>');
    expect(update.text).toContain('<done>1</done>');
  });

  it('replays a request with the same Idempotency-Key instead of doing it twice', async () => {
    const headers = { 'Idempotency-Key': `bulk-${Date.now()}` };
    const body = { stories: [{ text: 'once only' }, { text: 'once only too' }] };
    const first = await bulk('POST', body, { headers });
    const again = await bulk('POST', body, { headers });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    const found = await api(`${P()}/stories?where=${encodeURIComponent('text:"once only"')}`, {
      key: owner.key,
    });
    expect(found.json.totalItems).toBe(2);
  });

  it('sends one change per story done, and names each in Flowboard-Changes', async () => {
    const res = await bulk('POST', {
      stories: [{ text: 'ev1' }, { text: 'ev2', color: 'mauve' }, { text: 'ev3' }],
    });
    const changes = (res.headers.get('flowboard-changes') ?? '').split(',').filter(Boolean);
    expect(changes).toHaveLength(2); // story.created for each story done, none for the one that failed
  });

  it('a bulk update racing single updates with If-Match: each story changes once, nothing is lost', async () => {
    const made = (
      await bulk('POST', { stories: Array.from({ length: 10 }, (_, i) => ({ text: `race ${i}` })) })
    ).json.results as Result[];
    const ids = made.map((r) => r.story!.id);
    const etags = await Promise.all(
      ids.map(async (id) => (await api(`${P()}/stories/${id}`, { key: owner.key })).headers.get('etag')!),
    );
    // Both sides hold the same ETags: for each story exactly one of the two writes may win.
    const [bulkRes, ...singles] = await Promise.all([
      bulk('PUT', { stories: ids.map((id, i) => ({ id, ifMatch: etags[i], color: 'red' })) }),
      ...ids.map((id, i) =>
        api(`${P()}/stories/${id}`, {
          key: owner.key,
          method: 'PUT',
          body: { color: 'blue' },
          headers: { 'If-Match': etags[i]! },
        }),
      ),
    ]);
    expect(bulkRes.status).toBe(200);
    const bulkStatus = (bulkRes.json.results as Result[]).map((r) => r.status);
    for (const [i, id] of ids.entries()) {
      const bulkWon = bulkStatus[i] === 200;
      const singleWon = singles[i]!.status === 200;
      expect([bulkWon, singleWon].filter(Boolean)).toHaveLength(1);
      expect(bulkWon ? singles[i]!.status : bulkStatus[i]).toBe(412);
      const now = (await api(`${P()}/stories/${id}`, { key: owner.key })).json.color;
      expect(now).toBe(bulkWon ? 'red' : 'blue');
    }
  });

  it('lets only ReadWrite members write in bulk', async () => {
    const callers = await accessLadder(owner, project.id);
    const matrix = await accessMatrix(callers, async (key) => [
      (await api(`${P()}/stories/bulk`, { key, method: 'POST', body: { stories: [] } })).status,
      (await api(`${P()}/stories/bulk`, { key, method: 'PUT', body: { stories: [] } })).status,
    ]);
    expect(matrix).toEqual({
      anonymous: [401, 401],
      stranger: [404, 404],
      none: [403, 403],
      read: [403, 403],
      readwrite: [400, 400],
      admin: [400, 400],
    });
  });
});
