import {
  accessLadder,
  accessMatrix,
  api,
  childNames,
  createProject,
  signUp,
  sorted,
  XML_HEADERS,
  type SignedUp,
} from './support';

const STORY_KEYS = ['id', 'text', 'size', 'color', 'priority', 'status', 'project', 'phase', 'creator'];

describe('stories: list, filter, page, update, delete', () => {
  let gob: SignedUp;
  let other: SignedUp;
  let project: { id: number; name: string };
  let phases: Array<{ id: number; name: string }>;
  const P = () => `/api/v1/projects/${project.id}`;

  const create = async (body: Record<string, unknown>) => {
    const res = await api(`${P()}/stories`, { key: gob.key, method: 'POST', body });
    expect(res.status).toBe(200);
    return res.json;
  };
  const list = async (query: string) => {
    const res = await api(`${P()}/stories?${query}`, { key: gob.key });
    expect(res.status).toBe(200);
    return res.json;
  };
  const textsOf = (page: { items: Array<{ text: string }> }) => page.items.map((s) => s.text);

  beforeAll(async () => {
    gob = await signUp('gob');
    other = await signUp('other');
    project = await createProject(gob.key, 'Sudden Valley');
    phases = (await api(`${P()}?with=phases`, { key: gob.key })).json.phases;
    await create({
      text: 'Build Spec house',
      size: 5,
      priority: '9',
      color: 'TEAL',
      phase: 'working',
      owner: gob.userName,
      deadline: '2011-02-24',
      details: 'Only have 2 weeks to build a spec house.',
    });
    await create({ text: 'Unveil Business Model, Starla', color: 'orange', phase: { id: phases[3]!.id } });
    await create({ text: 'Buy boat "The Sea Word"', color: 'orange', phase: phases[4]!.id });
    await create({ text: 'Backlog item' });
  });

  it('GET P/stories: a page in board order, exact totals, story keys in the original order', async () => {
    const page = await list('');
    expect(Object.keys(page)).toEqual(['page', 'pageSize', 'totalPages', 'totalItems', 'items']);
    expect(page).toMatchObject({ page: 1, pageSize: 100, totalPages: 1, totalItems: 4 });
    expect(textsOf(page)).toEqual([
      'Backlog item',
      'Build Spec house',
      'Unveil Business Model, Starla',
      'Buy boat "The Sea Word"',
    ]);
    const spec = page.items[1];
    expect(Object.keys(spec)).toEqual([
      'id',
      'text',
      'size',
      'color',
      'priority',
      'deadline',
      'status',
      'project',
      'phase',
      'creator',
      'owner',
    ]);
    expect(spec).toMatchObject({
      size: '5',
      priority: '9',
      color: 'teal',
      deadline: '2011-02-24T00:00:00',
      status: 'started',
      project,
      phase: { id: phases[2]!.id, name: 'Working' },
    });
    expect(spec.owner).toEqual({ id: gob.id, name: 'gob Tester', userName: gob.userName, email: gob.email });
    expect(Object.keys(page.items[0])).toEqual(STORY_KEYS);
    const detailed = await list('with=details&pageSize=1&page=2');
    expect(detailed).toMatchObject({ page: 2, pageSize: 1, totalPages: 4, totalItems: 4 });
    expect(detailed.items[0].details).toBe('Only have 2 weeks to build a spec house.');
    const past = await list('page=7&PAGESIZE=2');
    expect(past).toMatchObject({ page: 7, pageSize: 2, totalPages: 2, totalItems: 4, items: [] });
    expect((await list('pagesize=100000')).pageSize).toBe(1000);
  });

  it('pages stay stable: walking every page gives each story once', async () => {
    const seen: number[] = [];
    for (let n = 1; ; n++) {
      const page = await list(`page=${n}&pageSize=3`);
      seen.push(...page.items.map((s: { id: number }) => s.id));
      if (n >= page.totalPages) break;
    }
    expect(sorted(seen.map(String))).toEqual(['1', '2', '3', '4']);
  });

  it('bad paging → 400 invalid-parameter', async () => {
    for (const q of ['page=0', 'pageSize=0', 'page=two', 'pageSize=2.5']) {
      const res = await api(`${P()}/stories?${q}`, { key: gob.key });
      expect(res.status).toBe(400);
      expect(res.json.type).toBe('urn:flowboard:problem:invalid-parameter');
    }
  });

  it.each<[string, string[]]>([
    ['color:orange', ['Unveil Business Model, Starla', 'Buy boat "The Sea Word"']],
    ['COLOR:Orange AND phase:archive', ['Buy boat "The Sea Word"']],
    ['text:"\\"the sea"', ['Buy boat "The Sea Word"']],
    ['status:invalid', []],
    [
      'not(status:invalid)',
      ['Backlog item', 'Build Spec house', 'Unveil Business Model, Starla', 'Buy boat "The Sea Word"'],
    ],
    ['(status:planned or status:finished) and not(color:red)', ['Backlog item', 'Buy boat "The Sea Word"']],
    ['owner:nobody', []],
    ['tag:"come on"', []],
    ['deadline:2011-02-24', ['Build Spec house']],
    ['text:"\'; DROP TABLE stories; --"', []],
  ])('where=%s', async (where, expected) => {
    expect(textsOf(await list(`where=${encodeURIComponent(where)}`))).toEqual(expected);
  });

  it('owner:/creator: match ids, usernames and display names', async () => {
    expect(textsOf(await list(`where=owner:${gob.userName.toUpperCase()}`))).toEqual(['Build Spec house']);
    expect(textsOf(await list(`where=${encodeURIComponent('owner:"gob tester"')}`))).toEqual([
      'Build Spec house',
    ]);
    expect(textsOf(await list(`where=owner:${gob.id}`))).toEqual(['Build Spec house']);
    expect((await list(`where=creator:${gob.userName}`)).totalItems).toBe(4);
  });

  it('a bad filter → 400 invalid-filter naming the property or the position', async () => {
    const unknown = await api(`${P()}/stories?where=colour:red`, { key: gob.key });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({
      type: 'urn:flowboard:problem:invalid-filter',
      detail: "Unknown filter property 'colour'.",
    });
    const syntax = await api(`${P()}/stories.xml?where=${encodeURIComponent('color:red color:blue')}`, {
      key: gob.key,
    });
    expect(syntax.status).toBe(400);
    expect(syntax.text).toContain('position 11');
    expect(syntax.text).toContain('<type>urn:flowboard:problem:invalid-filter</type>');
  });

  it('GET P/stories in XML: stories/items/story, alphabetical children', async () => {
    const res = await api(`${P()}/stories?where=color:teal`, { key: gob.key, headers: XML_HEADERS });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?><stories><items><story>/);
    expect(childNames(res.text, 'stories')).toEqual([
      'items',
      'page',
      'pageSize',
      'totalItems',
      'totalPages',
    ]);
    const names = childNames(res.text, 'story');
    expect(names).toEqual(sorted(names));
    expect(names).toEqual([
      'color',
      'creator',
      'deadline',
      'id',
      'owner',
      'phase',
      'priority',
      'project',
      'size',
      'status',
      'text',
    ]);
  });

  it('PUT S: moves first, then status; blocked carries blockedReason; read-only fields are ignored', async () => {
    const story = await create({ text: 'Move me' });
    const res = await api(`${P()}/stories/${story.id}?with=details`, {
      key: gob.key,
      method: 'PUT',
      body: {
        phase: 'Ready',
        status: 'blocked',
        blockedReason: 'Waiting on Gob',
        size: 'L',
        id: 999,
        project: { id: 1 },
        creator: 5,
        steps: [],
        bogus: 1,
      },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual([
      'id',
      'text',
      'details',
      'size',
      'color',
      'priority',
      'status',
      'blockedReason',
      'project',
      'phase',
      'creator',
    ]);
    expect(res.json).toMatchObject({
      id: story.id,
      status: 'blocked',
      blockedReason: 'Waiting on Gob',
      size: 'L',
      phase: { id: phases[1]!.id },
    });
    const unblocked = await api(`${P()}/stories/${story.id}`, {
      key: gob.key,
      method: 'PUT',
      body: { status: 'started' },
    });
    expect(unblocked.json.status).toBe('started');
    expect(unblocked.json).not.toHaveProperty('blockedReason');
    const archived = await api(`${P()}/stories/${story.id}`, {
      key: gob.key,
      method: 'PUT',
      body: { phase: phases[4]!.id },
    });
    expect(archived.json).toMatchObject({ status: 'finished', phase: { name: 'Archive' } });
    const refused = await api(`${P()}/stories/${story.id}`, {
      key: gob.key,
      method: 'PUT',
      body: { status: 'ready' },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.type).toBe('urn:flowboard:problem:invalid-state');
    const planned = await api(`${P()}/stories/${story.id}`, {
      key: gob.key,
      method: 'PUT',
      body: { status: 'planned', phase: 'Working' },
    });
    expect(planned.status).toBe(400);
    // The failed PUT changed nothing (one transaction).
    expect((await api(`${P()}/stories/${story.id}`, { key: gob.key })).json.phase.name).toBe('Archive');
  });

  it('PUT S with an XML body and answer; <owner /> and <deadline /> clear', async () => {
    const story = await create({ text: 'XML', owner: gob.id, deadline: '2012-01-01' });
    const res = await api(`${P()}/stories/${story.id}`, {
      key: gob.key,
      method: 'PUT',
      headers: { 'Content-Type': 'application/xml' },
      body: `<?xml version="1.0"?><story><text>Buy boat &quot;The Sea Word&quot;</text><owner /><deadline /><phase><name>working</name></phase><status>ready</status></story>`,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(res.text).toContain('<text>Buy boat "The Sea Word"</text>');
    expect(res.text).toContain('<status>ready</status>');
    expect(res.text).not.toContain('<owner>');
    expect(res.text).not.toContain('<deadline>');
  });

  it('owner must be a project member (400 invalid-reference); null unassigns', async () => {
    const story = await create({ text: 'Owned', owner: { userName: gob.userName } });
    expect(story.owner.id).toBe(gob.id);
    for (const owner of [other.id, other.userName, { username: other.userName }]) {
      const res = await api(`${P()}/stories/${story.id}`, { key: gob.key, method: 'PUT', body: { owner } });
      expect(res.status).toBe(400);
      expect(res.json.type).toBe('urn:flowboard:problem:invalid-reference');
    }
    const post = await api(`${P()}/stories`, {
      key: gob.key,
      method: 'POST',
      body: { text: 'x', owner: other.id },
    });
    expect(post.status).toBe(400);
    const cleared = await api(`${P()}/stories/${story.id}`, {
      key: gob.key,
      method: 'PUT',
      body: { owner: null },
    });
    expect(cleared.json).not.toHaveProperty('owner');
  });

  it('DELETE S → 200, empty body, no Content-Type; then 404', async () => {
    const story = await create({ text: 'Delete me', phase: 'Working' });
    const res = await api(`${P()}/stories/${story.id}`, { key: gob.key, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(res.headers.get('content-type')).toBeNull();
    expect(res.headers.get('content-length')).toBe('0');
    expect((await api(`${P()}/stories/${story.id}`, { key: gob.key })).status).toBe(404);
    expect((await api(`${P()}/stories/${story.id}`, { key: gob.key, method: 'DELETE' })).status).toBe(404);
  });

  it('access matrix: Read to read, ReadWrite to write (bulk PUT: phases.e2e.test.ts)', async () => {
    const story = await create({ text: 'Matrix story' });
    const callers = await accessLadder(gob, project.id);
    const status = async (path: string, key: string | undefined, method = 'GET', body?: unknown) =>
      (await api(path, { key, method, body })).status;
    // Writes an allowed caller makes are refused by the body (400) or find nothing (404), after the access check.
    const matrix = await accessMatrix(callers, async (key) => [
      await status(`${P()}/stories`, key),
      await status(`${P()}/stories/${story.id}`, key),
      await status(`${P()}/stories`, key, 'POST', { color: 'red' }), // no text
      await status(`${P()}/stories/${story.id}`, key, 'PUT', { color: 'mauve' }),
      await status(`${P()}/stories/999999999`, key, 'DELETE'),
    ]);
    expect(matrix).toEqual({
      anonymous: [401, 401, 401, 401, 401],
      stranger: [404, 404, 404, 404, 404],
      none: [403, 403, 403, 403, 403],
      read: [200, 200, 403, 403, 403],
      readwrite: [200, 200, 400, 400, 404],
      admin: [200, 200, 400, 400, 404],
    });
    // A stranger cannot tell a missing story from an existing one.
    expect((await api(`${P()}/stories/999999999`, { key: other.key })).status).toBe(404);
  });

  it('parallel moves through the gateway never corrupt the board', async () => {
    const created: Array<{ id: number }> = [];
    for (let i = 0; i < 6; i++) created.push(await create({ text: `parallel ${i}` }));
    const moves = Array.from({ length: 24 }, (_, i) =>
      api(`${P()}/stories/${created[i % 6]!.id}`, {
        key: gob.key,
        method: 'PUT',
        body: { phase: phases[1 + (i % 3)]!.id },
      }),
    );
    const results = await Promise.all(moves);
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const page = await list('where=text:parallel');
    expect(page.totalItems).toBe(6);
    expect(sorted(page.items.map((s: { id: number }) => String(s.id)))).toEqual(
      sorted(created.map((s) => String(s.id))),
    );
  });
});
