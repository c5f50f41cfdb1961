import {
  accessLadder,
  accessLadderUsers,
  accessMatrix,
  api,
  childNames,
  createProject,
  signUp,
  XML_HEADERS,
  type SignedUp,
} from './support';

interface PhaseJson {
  id: number;
  name: string;
  description: string;
  index: number;
  limit?: number;
  stories?: Array<{ id: number; text: string }>;
}

describe('phases', () => {
  let owner: SignedUp;
  let reader: SignedUp;
  let writer: SignedUp;
  let project: { id: number; name: string };
  const P = () => `/api/v1/projects/${project.id}`;

  const phasesOf = async (key = owner.key): Promise<PhaseJson[]> => {
    const res = await api(`${P()}/phases`, { key });
    expect(res.status).toBe(200);
    return res.json.items;
  };
  const names = (phases: PhaseJson[]) => phases.map((p) => `${p.name}@${p.index}`);
  const createStory = async (body: Record<string, unknown>) => {
    const res = await api(`${P()}/stories`, { key: owner.key, method: 'POST', body });
    expect(res.status).toBe(200);
    return res.json as { id: number; text: string };
  };
  beforeAll(async () => {
    owner = await signUp('phases-owner');
    project = await createProject(owner.key);
    ({ read: reader, readwrite: writer } = (await accessLadderUsers(owner, project.id)).users);
  });

  it('GET P/phases: a page of the default phases in index order, limit omitted when unset', async () => {
    const res = await api(`${P()}/phases`, { key: reader.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['page', 'pageSize', 'totalPages', 'totalItems', 'items']);
    expect(res.json).toMatchObject({ page: 1, pageSize: 100, totalPages: 1, totalItems: 5 });
    expect(names(res.json.items)).toEqual(['Backlog@0', 'Ready@1', 'Working@2', 'Complete@3', 'Archive@4']);
    expect(Object.keys(res.json.items[0])).toEqual(['id', 'name', 'description', 'index']);
    expect(res.json.items[0].description).toBe('Stories that will be worked on someday');
    const paged = await api(`${P()}/phases?pageSize=2&page=3`, { key: reader.key });
    expect(paged.json).toMatchObject({ page: 3, totalPages: 3, totalItems: 5 });
    expect(names(paged.json.items)).toEqual(['Archive@4']);
    const filtered = await api(`${P()}/phases?where=${encodeURIComponent('name:working or name:READY')}`, {
      key: reader.key,
    });
    expect(names(filtered.json.items)).toEqual(['Ready@1', 'Working@2']);
    const unknown = await api(`${P()}/phases?where=color:red`, { key: reader.key });
    expect(unknown.status).toBe(400);
  });

  it('POST/GET/PUT/DELETE a phase: default index, shifts, limit rules, Backlog/Archive protected', async () => {
    const created = await api(`${P()}/phases`, {
      key: owner.key,
      method: 'POST',
      body: { name: 'Review', description: 'Code review', limit: '3' },
    });
    expect(created.status).toBe(200);
    expect(created.json).toEqual({
      id: created.json.id,
      name: 'Review',
      description: 'Code review',
      index: 4,
      limit: 3,
    });
    const review = created.json as PhaseJson;
    const triage = await api(`${P()}/phases`, {
      key: owner.key,
      method: 'POST',
      body: { name: 'Triage', description: '', index: 1 },
    });
    expect(triage.json.index).toBe(1);
    expect(names(await phasesOf())).toEqual([
      'Backlog@0',
      'Triage@1',
      'Ready@2',
      'Working@3',
      'Complete@4',
      'Review@5',
      'Archive@6',
    ]);
    for (const body of [
      { name: 'X', description: '', index: 0 },
      { name: 'X', description: '', index: 8 },
      { name: 'X', description: '', limit: 0 },
      { name: 'X', description: '', limit: -1 },
      { name: '', description: '' },
      { name: 'X' },
    ]) {
      const res = await api(`${P()}/phases`, { key: owner.key, method: 'POST', body });
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
    const moved = await api(`${P()}/phases/${review.id}`, {
      key: owner.key,
      method: 'PUT',
      body: { index: 1, limit: null, name: 'Ready', id: 999, ignored: true },
    });
    expect(moved.status).toBe(200);
    expect(moved.json).toEqual({ id: review.id, name: 'Ready', description: 'Code review', index: 1 });
    const got = await api(`${P()}/phases/${review.id}`, { key: reader.key });
    expect(got.json).toEqual(moved.json);
    expect(names(await phasesOf())).toEqual([
      'Backlog@0',
      'Ready@1',
      'Triage@2',
      'Ready@3',
      'Working@4',
      'Complete@5',
      'Archive@6',
    ]);
    const [backlog, , , , , , archive] = await phasesOf();
    for (const [id, body] of [
      [backlog!.id, { index: 1 }],
      [archive!.id, { index: 2 }],
      [review.id, { index: 0 }],
      [review.id, { index: 6 }],
      [review.id, { limit: 'many' }],
    ] as const) {
      const res = await api(`${P()}/phases/${id}`, { key: owner.key, method: 'PUT', body });
      expect(res.status).toBe(400);
    }
    const renamed = await api(`${P()}/phases/${archive!.id}`, {
      key: owner.key,
      method: 'PUT',
      body: { name: 'Done', limit: '' },
    });
    expect(renamed.json).toMatchObject({ name: 'Done', index: 6 });
    for (const id of [backlog!.id, archive!.id]) {
      const res = await api(`${P()}/phases/${id}`, { key: owner.key, method: 'DELETE' });
      expect(res.status).toBe(400);
    }
    const story = await createStory({ text: 'In triage', phase: triage.json.id });
    const busy = await api(`${P()}/phases/${triage.json.id}`, { key: owner.key, method: 'DELETE' });
    expect(busy.status).toBe(409);
    expect((await api(`${P()}/stories/${story.id}`, { key: owner.key })).status).toBe(200);
    const gone = await api(`${P()}/phases/${review.id}`, { key: owner.key, method: 'DELETE' });
    expect(gone.status).toBe(200);
    expect(gone.text).toBe('');
    expect(gone.headers.get('content-type')).toBeNull();
    expect((await api(`${P()}/phases/${review.id}`, { key: owner.key })).status).toBe(404);
    expect(names(await phasesOf())).toEqual([
      'Backlog@0',
      'Triage@1',
      'Ready@2',
      'Working@3',
      'Complete@4',
      'Done@5',
    ]);
    // Leave the board as the next tests expect: the story out of Triage, Triage gone, Archive's name back.
    await api(`${P()}/stories/${story.id}`, { key: owner.key, method: 'DELETE' });
    expect((await api(`${P()}/phases/${triage.json.id}`, { key: owner.key, method: 'DELETE' })).status).toBe(
      200,
    );
    await api(`${P()}/phases/${archive!.id}`, { key: owner.key, method: 'PUT', body: { name: 'Archive' } });
  });

  it('PUT P/phases reorders: every phase once, Backlog first, Archive last; answers the page', async () => {
    const ids = (await phasesOf()).map((p) => p.id);
    const [b, r, w, c, a] = ids as [number, number, number, number, number];
    for (const bad of [
      [b, r, w, a],
      [b, r, r, w, c, a],
      [r, b, w, c, a],
      [b, r, w, a, c],
    ]) {
      const res = await api(`${P()}/phases`, { key: owner.key, method: 'PUT', body: bad });
      expect(res.status).toBe(400);
    }
    const res = await api(`${P()}/phases`, {
      key: owner.key,
      method: 'PUT',
      body: [b, { id: c }, String(w), { id: r, name: 'ignored' }, a],
    });
    expect(res.status).toBe(200);
    expect(names(res.json.items)).toEqual(['Backlog@0', 'Complete@1', 'Working@2', 'Ready@3', 'Archive@4']);
    // XML body: each child of the root is one item.
    const xml = `<phases>${[b, r, w, c, a].map((id) => `<phase><id>${id}</id></phase>`).join('')}</phases>`;
    const back = await api(`${P()}/phases`, {
      key: owner.key,
      method: 'PUT',
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: xml,
    });
    expect(back.status).toBe(200);
    expect(childNames(back.text, 'phases')).toEqual([
      'items',
      'page',
      'pageSize',
      'totalItems',
      'totalPages',
    ]);
    expect(names(await phasesOf())).toEqual(['Backlog@0', 'Ready@1', 'Working@2', 'Complete@3', 'Archive@4']);
  });

  it('phase stories: GET narrows/slices/enriches, PUT reorders exactly the phase, ?with=stories on phases', async () => {
    const [, ready] = await phasesOf();
    const a = await createStory({ text: 'a', color: 'red', phase: ready!.id, details: 'A details' });
    const b = await createStory({ text: 'b', phase: ready!.id });
    const c = await createStory({ text: 'c', color: 'red', phase: ready!.id });
    await createStory({ text: 'in backlog' });
    const path = `${P()}/phases/${ready!.id}/stories`;
    const all = await api(path, { key: reader.key });
    expect(all.status).toBe(200);
    expect(Object.keys(all.json)).toEqual(['id', 'name', 'description', 'index', 'stories']);
    expect(all.json.stories.map((s: { text: string }) => s.text)).toEqual(['a', 'b', 'c']);
    expect(all.json.stories[0]).not.toHaveProperty('details');
    const red = await api(`${path}?where=color:red&with=details`, { key: reader.key });
    expect(red.json.stories.map((s: { text: string }) => s.text)).toEqual(['a', 'c']);
    expect(red.json.stories[0].details).toBe('A details');
    const slice = await api(`${path}?page=2&pageSize=2`, { key: reader.key });
    expect(slice.json.stories.map((s: { text: string }) => s.text)).toEqual(['c']);
    expect(slice.json).not.toHaveProperty('totalItems');

    for (const bad of [[a.id, b.id], [a.id, b.id, c.id, c.id], [a.id, b.id, c.id, 4], 'x']) {
      const res = await api(path, { key: writer.key, method: 'PUT', body: bad });
      expect(res.status).toBe(400);
    }
    const reordered = await api(path, { key: writer.key, method: 'PUT', body: [c.id, { id: a.id }, b.id] });
    expect(reordered.status).toBe(200);
    expect(reordered.json.stories.map((s: { text: string }) => s.text)).toEqual(['c', 'a', 'b']);
    expect(reordered.json.name).toBe('Ready');
    const xml = await api(path, {
      key: writer.key,
      method: 'PUT',
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: `<stories><story>${a.id}</story><story><id>${b.id}</id></story><story>${c.id}</story></stories>`,
    });
    expect(xml.status).toBe(200);
    expect(childNames(xml.text, 'phase')).toEqual(['description', 'id', 'index', 'limit', 'name', 'stories']);
    expect([...xml.text.matchAll(/<story><color>/g)]).toHaveLength(3);
    expect(xml.text).toContain('<limit />');

    const enriched = await api(`${P()}/phases?with=stories`, { key: reader.key });
    const byName = new Map<string, PhaseJson>(enriched.json.items.map((p: PhaseJson) => [p.name, p]));
    expect(byName.get('Ready')!.stories!.map((s) => s.text)).toEqual(['a', 'b', 'c']);
    expect(byName.get('Backlog')!.stories!.map((s) => s.text)).toEqual(['in backlog']);
    expect(byName.get('Archive')!.stories).toEqual([]);
    const one = await api(`${P()}/phases/${ready!.id}.xml?with=stories`, { key: reader.key });
    expect(childNames(one.text, 'phase')).toEqual(['description', 'id', 'index', 'limit', 'name', 'stories']);
    expect((await api(`${P()}/phases?with=colour`, { key: reader.key })).status).toBe(400);
  });

  it('XML: a phase in and out, <limit /> when unset', async () => {
    const created = await api(`${P()}/phases`, {
      key: owner.key,
      method: 'POST',
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: '<phase><name>QA</name><description>Checks</description><limit /></phase>',
    });
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(childNames(created.text, 'phase')).toEqual(['description', 'id', 'index', 'limit', 'name']);
    expect(created.text).toContain('<limit />');
    expect(created.text).toContain('<index>4</index>');
    const id = /<id>(\d+)<\/id>/.exec(created.text)![1];
    const updated = await api(`${P()}/phases/${id}.xml`, {
      key: owner.key,
      method: 'PUT',
      headers: { 'Content-Type': 'application/xml' },
      body: '<phase><limit>2</limit></phase>',
    });
    expect(updated.text).toContain('<limit>2</limit>');
    const page = await api(`${P()}/phases`, { key: reader.key, headers: XML_HEADERS });
    expect(childNames(page.text, 'phases')).toEqual([
      'items',
      'page',
      'pageSize',
      'totalItems',
      'totalPages',
    ]);
    expect(page.text).toContain('<items><phase>');
    expect((await api(`${P()}/phases/${id}`, { key: owner.key, method: 'DELETE' })).status).toBe(200);
  });

  it('XML: GET P/phases/{id}/stories is a <phase> holding <stories><story>…, alphabetical, unset fields omitted', async () => {
    // A board of its own, so the phase holds exactly the stories made here.
    const own = await createProject(owner.key);
    const Q = `/api/v1/projects/${own.id}`;
    const [, , working, complete] = (await api(`${Q}/phases`, { key: owner.key })).json.items as PhaseJson[];
    const story = async (body: Record<string, unknown>) =>
      (await api(`${Q}/stories`, { key: owner.key, method: 'POST', body: { phase: working!.id, ...body } }))
        .json.id as number;
    const plain = await story({ text: 'plain' });
    const blocked = await story({ text: 'blocked', owner: owner.id, deadline: '2031-05-06' });
    const put = await api(`${Q}/stories/${blocked}`, {
      key: owner.key,
      method: 'PUT',
      body: { status: 'blocked', blockedReason: 'Waiting on legal' },
    });
    expect(put.status).toBe(200);

    const res = await api(`${Q}/phases/${working!.id}/stories?with=tags`, {
      key: owner.key,
      headers: XML_HEADERS,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(res.text).toMatch(
      new RegExp(
        `^<\\?xml version="1.0" encoding="utf-8"\\?><phase><description>Stories that are currently being worked on</description><id>${working!.id}</id><index>2</index><limit /><name>Working</name><stories><story>`,
      ),
    );
    expect(res.text.endsWith('</story></stories></phase>')).toBe(true);
    expect(childNames(res.text, 'phase')).toEqual(['description', 'id', 'index', 'limit', 'name', 'stories']);
    expect(childNames(res.text, 'stories')).toEqual(['story', 'story']);
    expect(res.text).not.toContain('<totalItems>'); // a phase, not a page
    const [first, second] = [...res.text.matchAll(/<story>[\s\S]*?<\/story>/g)].map((m) => m[0]);
    const always = [
      'color',
      'creator',
      'id',
      'phase',
      'priority',
      'project',
      'size',
      'status',
      'tags',
      'text',
    ];
    expect(childNames(first!, 'story')).toEqual(always);
    expect(first).toContain(`<id>${plain}</id>`);
    expect(first).toContain('<status>started</status>');
    for (const empty of ['<priority />', '<size />', '<tags />']) expect(first).toContain(empty);
    expect(childNames(second!, 'story')).toEqual([...always, 'blockedReason', 'deadline', 'owner'].sort());
    expect(second).toContain(`<id>${blocked}</id>`);
    expect(second).toContain('<blockedReason>Waiting on legal</blockedReason>');
    expect(second).toContain('<deadline>2031-05-06T00:00:00</deadline>');
    expect(second).toContain('<status>blocked</status>');
    expect(second).toContain(
      `<owner><email>${owner.email}</email><id>${owner.id}</id><name>phases-owner Tester</name><userName>${owner.userName}</userName></owner>`,
    );
    expect(second).toContain(`<phase><id>${working!.id}</id><name>Working</name></phase>`);
    expect(second).toContain(`<project><id>${own.id}</id><name>${own.name}</name></project>`);

    const empty = await api(`${Q}/phases/${complete!.id}/stories.xml`, { key: owner.key });
    expect(empty.status).toBe(200);
    expect(empty.text).toBe(
      `<?xml version="1.0" encoding="utf-8"?><phase><description>Stories that have been completed</description><id>${complete!.id}</id><index>3</index><limit /><name>Complete</name><stories /></phase>`,
    );
  });

  it('access matrix: Read to read, ReadWrite to reorder a phase’s stories, Admin for phase writes', async () => {
    // A project of its own, so the probes see a known board (an empty Ready phase).
    const own = await createProject(owner.key);
    const Q = `/api/v1/projects/${own.id}`;
    const [backlog, ready] = (await api(`${Q}/phases`, { key: owner.key })).json.items as PhaseJson[];
    const callers = await accessLadder(owner, own.id);
    const status = async (path: string, key: string | undefined, method = 'GET', body?: unknown) =>
      (await api(path, { key, method, body })).status;
    // Writes an allowed caller makes are refused by the body or a rule (400), after the access check.
    const matrix = await accessMatrix(callers, async (key) => [
      await status(`${Q}/phases`, key),
      await status(`${Q}/phases/${ready!.id}`, key),
      await status(`${Q}/phases/${ready!.id}/stories`, key),
      await status(`${Q}/phases/${ready!.id}/stories`, key, 'PUT', []), // the phase is empty: 200
      await status(`${Q}/phases`, key, 'POST', { description: '' }), // no name
      await status(`${Q}/phases/${ready!.id}`, key, 'PUT', { name: '' }),
      await status(`${Q}/phases`, key, 'PUT', []), // must list every phase
      await status(`${Q}/phases/${backlog!.id}`, key, 'DELETE'), // Backlog cannot be deleted
    ]);
    expect(matrix).toEqual({
      anonymous: [401, 401, 401, 401, 401, 401, 401, 401],
      stranger: [404, 404, 404, 404, 404, 404, 404, 404],
      none: [403, 403, 403, 403, 403, 403, 403, 403],
      read: [200, 200, 200, 403, 403, 403, 403, 403],
      readwrite: [200, 200, 200, 200, 403, 403, 403, 403],
      admin: [200, 200, 200, 200, 400, 400, 400, 400],
    });
    expect((await api(`${Q}/phases`, { key: owner.key })).json.items).toHaveLength(5);
  });

  it('parallel phase creates and reorders never leave duplicate or missing indexes', async () => {
    const initial = await phasesOf();
    const backlog = initial[0]!.id;
    const archive = initial[initial.length - 1]!.id;
    const requests: Array<Promise<{ status: number }>> = [];
    for (let i = 0; i < 8; i++) {
      requests.push(
        api(`${P()}/phases`, {
          key: owner.key,
          method: 'POST',
          body: { name: `P${i}`, description: '', ...(i % 2 ? { index: 1 } : {}) },
        }),
      );
      requests.push(
        (async () => {
          const ids = (await phasesOf()).map((p) => p.id);
          return api(`${P()}/phases`, {
            key: owner.key,
            method: 'PUT',
            body: [backlog, ...ids.slice(1, -1).reverse(), archive],
          });
        })(),
      );
    }
    const statuses = (await Promise.all(requests)).map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 400)).toBe(true);
    const after = await phasesOf();
    expect(after.map((p) => p.index)).toEqual([...after.keys()]);
    expect(after).toHaveLength(initial.length + 8);
    expect([after[0]!.id, after[after.length - 1]!.id]).toEqual([backlog, archive]);
  });
});

describe('bulk PUT P/stories?where=', () => {
  let owner: SignedUp;
  let project: { id: number; name: string };
  const P = () => `/api/v1/projects/${project.id}`;
  const stories = async () =>
    (await api(`${P()}/stories`, { key: owner.key })).json.items as Array<Record<string, unknown>>;

  beforeAll(async () => {
    owner = await signUp('bulk');
    project = await createProject(owner.key);
    const phases = (await api(`${P()}/phases`, { key: owner.key })).json.items;
    for (const [text, color, phase] of [
      ['one', 'red', phases[2].id],
      ['two', 'red', phases[2].id],
      ['three', 'grey', phases[0].id],
    ]) {
      const res = await api(`${P()}/stories`, {
        key: owner.key,
        method: 'POST',
        body: { text, color, phase },
      });
      expect(res.status).toBe(200);
    }
  });

  it('where is required (400 invalid-parameter)', async () => {
    for (const q of ['', '?where=', '?where=%20']) {
      const res = await api(`${P()}/stories${q}`, { key: owner.key, method: 'PUT', body: { color: 'blue' } });
      expect(res.status).toBe(400);
      expect(res.json.type).toBe('urn:flowboard:problem:invalid-parameter');
    }
    const bad = await api(`${P()}/stories?where=nope:1`, { key: owner.key, method: 'PUT', body: {} });
    expect(bad.status).toBe(400);
  });

  it('updates every match and answers the page of affected stories with the updates applied', async () => {
    const res = await api(`${P()}/stories?where=color:red&pageSize=1&with=details`, {
      key: owner.key,
      method: 'PUT',
      body: { color: 'blue', status: 'blocked', blockedReason: 'waiting', details: 'bulk', id: 77 },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ page: 1, pageSize: 1, totalPages: 2, totalItems: 2 });
    expect(res.json.items[0]).toMatchObject({
      text: 'one',
      color: 'blue',
      status: 'blocked',
      blockedReason: 'waiting',
      details: 'bulk',
    });
    expect((await stories()).map((s) => `${s.text}:${s.color}:${s.status}`)).toEqual([
      'three:grey:planned',
      'one:blue:blocked',
      'two:blue:blocked',
    ]);
    const xml = await api(`${P()}/stories?where=text:three`, {
      key: owner.key,
      method: 'PUT',
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: '<story><priority>High</priority></story>',
    });
    expect(xml.status).toBe(200);
    expect(childNames(xml.text, 'stories')).toEqual([
      'items',
      'page',
      'pageSize',
      'totalItems',
      'totalPages',
    ]);
    expect(xml.text).toContain('<priority>High</priority>');
  });

  it('is all or nothing: one failing story leaves every story unchanged', async () => {
    const before = await stories();
    // `status` cannot be set on the Backlog story: the whole update fails.
    const res = await api(`${P()}/stories?where=${encodeURIComponent('not(color:purple)')}`, {
      key: owner.key,
      method: 'PUT',
      body: { text: 'renamed', status: 'ready' },
    });
    expect(res.status).toBe(400);
    expect(await stories()).toEqual(before);
  });

  it('access matrix: ReadWrite', async () => {
    const before = await stories();
    const callers = await accessLadder(owner, project.id);
    const matrix = await accessMatrix(callers, async (key) => [
      // Matches nothing, so an allowed caller changes nothing (200, an empty page).
      (
        await api(`${P()}/stories?where=text:"no such story"`, {
          key,
          method: 'PUT',
          body: { color: 'blue' },
        })
      ).status,
    ]);
    expect(matrix).toEqual({
      anonymous: [401],
      stranger: [404],
      none: [403],
      read: [403],
      readwrite: [200],
      admin: [200],
    });
    expect(await stories()).toEqual(before);
  });
});
