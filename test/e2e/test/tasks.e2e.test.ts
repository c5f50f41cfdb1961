import {
  accessLadderUsers,
  accessMatrix,
  api,
  childNames,
  createProject,
  signUp,
  sorted,
  XML_HEADERS,
  type Callers,
  type SignedUp,
} from './support';

/**
 * Tasks through the gateway against real boards and membership (spec "Tasks", docs/compat.md §4.1, §4.2,
 * §5.6): create (appended), get, update (complete sets finishTime/finishedBy, reopen clears), reorder,
 * delete, `where` (every property 400), `with=tasks` on stories, `tasks` on story create, XML, and write
 * access.
 */
jest.setTimeout(60_000);

let owner: SignedUp;
let writer: SignedUp;
let reader: SignedUp;
let callers: Callers;
let P: string;
let S: string;

beforeAll(async () => {
  owner = await signUp('task-owner');
  const project = await createProject(owner.key);
  P = `/api/v1/projects/${project.id}`;
  const ladder = await accessLadderUsers(owner, project.id);
  callers = ladder.callers;
  ({ readwrite: writer, read: reader } = ladder.users);
  const story = await api(`${P}/stories`, { method: 'POST', key: owner.key, body: { text: 'Tasks story' } });
  expect(story.status).toBe(200);
  S = `${P}/stories/${story.json.id}`;
});

describe('tasks end to end', () => {
  it('creates, completes, reopens, reorders and deletes', async () => {
    const a = await api(`${S}/tasks`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'Pour the foundation' },
    });
    expect(a.status).toBe(200);
    expect(Object.keys(a.json)).toEqual(['id', 'text', 'status', 'createTime']);
    expect(a.json).toMatchObject({ text: 'Pour the foundation', status: 'incomplete' });
    const b = await api(`${S}/tasks`, {
      method: 'POST',
      key: writer.key,
      body: { text: 'Frame the walls', status: 'complete' },
    });
    expect(b.status).toBe(200);
    expect(b.json.finishedBy).toEqual({
      id: writer.id,
      name: 'ladder-readwrite Tester',
      userName: writer.userName,
      email: writer.email,
    });

    const done = await api(`${S}/tasks/${a.json.id}`, {
      method: 'PUT',
      key: writer.key,
      body: { status: 'complete' },
    });
    expect(done.status).toBe(200);
    expect(Object.keys(done.json)).toEqual([
      'id',
      'text',
      'status',
      'createTime',
      'finishTime',
      'finishedBy',
    ]);
    expect(done.json.finishedBy.id).toBe(writer.id);
    expect(done.json.finishTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);

    const reopened = await api(`${S}/tasks/${a.json.id}`, {
      method: 'PUT',
      key: owner.key,
      body: { status: 'incomplete', text: 'Pour it again' },
    });
    expect(reopened.json).toEqual({
      id: a.json.id,
      text: 'Pour it again',
      status: 'incomplete',
      createTime: a.json.createTime,
    });

    const list = await api(`${S}/tasks`, { key: reader.key });
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ page: 1, pageSize: 100, totalPages: 1, totalItems: 2 });
    expect(list.json.items.map((t: { id: number }) => t.id)).toEqual([a.json.id, b.json.id]);

    const reordered = await api(`${S}/tasks`, {
      method: 'PUT',
      key: owner.key,
      body: [{ id: b.json.id }, a.json.id],
    });
    expect(reordered.status).toBe(200);
    expect(reordered.json.items.map((t: { id: number }) => t.id)).toEqual([b.json.id, a.json.id]);
    const partial = await api(`${S}/tasks`, { method: 'PUT', key: owner.key, body: [b.json.id] });
    expect(partial.status).toBe(400);

    const one = await api(`${S}/tasks/${b.json.id}`, { key: reader.key });
    expect(one.json.text).toBe('Frame the walls');

    expect((await api(`${S}/tasks/${a.json.id}`, { method: 'DELETE', key: owner.key })).status).toBe(200);
    expect((await api(`${S}/tasks/${a.json.id}`, { key: owner.key })).status).toBe(404);
  });

  it('validates: text required, status known, where has no properties, story must exist', async () => {
    expect((await api(`${S}/tasks`, { method: 'POST', key: owner.key, body: {} })).status).toBe(400);
    const badStatus = await api(`${S}/tasks`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'x', status: 'done' },
    });
    expect(badStatus.status).toBe(400);
    const long = await api(`${S}/tasks`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'x'.repeat(2001) },
    });
    expect(long.status).toBe(400);
    const where = await api(`${S}/tasks?where=text:x`, { key: owner.key });
    expect(where.status).toBe(400);
    expect(where.json.type).toBe('urn:flowboard:problem:invalid-filter');
    expect((await api(`${P}/stories/99999/tasks`, { key: owner.key })).status).toBe(404);
  });

  it('access matrix: Read to read, ReadWrite to write', async () => {
    const story = await api(`${P}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'Matrix story', tasks: [{ text: 'only task' }] },
    });
    const T = `${P}/stories/${story.json.id}`;
    const task = (await api(`${T}/tasks`, { key: owner.key })).json.items[0].id as number;
    const status = async (path: string, key: string | undefined, method = 'GET', body?: unknown) =>
      (await api(path, { key, method, body })).status;
    // Writes an allowed caller makes are refused by the body (400) or find nothing (404), after the access check.
    const matrix = await accessMatrix(callers, async (key) => [
      await status(`${T}/tasks`, key),
      await status(`${T}/tasks/${task}`, key),
      await status(`${T}/tasks`, key, 'POST', {}), // no text
      await status(`${T}/tasks`, key, 'PUT', []), // must list every task
      await status(`${T}/tasks/${task}`, key, 'PUT', { status: 'someday' }),
      await status(`${T}/tasks/999999999`, key, 'DELETE'),
    ]);
    expect(matrix).toEqual({
      anonymous: [401, 401, 401, 401, 401, 401],
      stranger: [404, 404, 404, 404, 404, 404],
      none: [403, 403, 403, 403, 403, 403],
      read: [200, 200, 403, 403, 403, 403],
      readwrite: [200, 200, 400, 400, 400, 404],
      admin: [200, 200, 400, 400, 400, 404],
    });
    expect((await api(`${T}/tasks`, { key: owner.key })).json.items).toMatchObject([{ text: 'only task' }]);
  });

  it('story create with tasks; with=tasks is always an array', async () => {
    const created = await api(`${P}/stories?with=tasks`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'With tasks', tasks: [{ text: 'one' }, { text: 'two', status: 'complete' }] },
    });
    expect(created.status).toBe(200);
    expect(created.json.tasks.map((t: { text: string; status: string }) => [t.text, t.status])).toEqual([
      ['one', 'incomplete'],
      ['two', 'complete'],
    ]);
    expect(created.json.tasks[1].finishedBy.id).toBe(owner.id);
    const bare = await api(`${P}/stories`, { method: 'POST', key: owner.key, body: { text: 'No tasks' } });
    const got = await api(`${P}/stories/${bare.json.id}?with=tasks`, { key: owner.key });
    expect(got.json.tasks).toEqual([]);
    const without = await api(`${P}/stories/${bare.json.id}`, { key: owner.key });
    expect(without.json.tasks).toBeUndefined();
  });

  it('XML: create with an XML body, page as tasks/items/task', async () => {
    const created = await api(`${S}/tasks`, {
      method: 'POST',
      key: owner.key,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: '<task><text>From XML</text><status>complete</status></task>',
    });
    expect(created.status).toBe(200);
    expect(sorted(childNames(created.text, 'task'))).toEqual(
      sorted(['id', 'text', 'status', 'createTime', 'finishTime', 'finishedBy']),
    );
    const list = await api(`${S}/tasks`, { key: owner.key, headers: XML_HEADERS });
    expect(list.status).toBe(200);
    expect(list.text).toMatch(/<tasks><items><task>/);
  });

  it('XML: GET and PUT one task, PUT S/tasks with an XML array of ids and {id} objects', async () => {
    const XML_IO = { 'Content-Type': 'application/xml', Accept: 'application/xml' };
    const story = await api(`${P}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'XML tasks', tasks: [{ text: 'first' }, { text: 'second' }] },
    });
    const T = `${P}/stories/${story.json.id}/tasks`;
    const [a, b] = (await api(T, { key: owner.key })).json.items as Array<{ id: number; createTime: string }>;
    const head = '<?xml version="1.0" encoding="utf-8"?>';

    // Alphabetical children; finishTime and finishedBy omitted while incomplete.
    const got = await api(`${T}/${a!.id}`, { key: reader.key, headers: XML_HEADERS });
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(got.text).toBe(
      `${head}<task><createTime>${a!.createTime}</createTime><id>${a!.id}</id><status>incomplete</status><text>first</text></task>`,
    );

    const done = await api(`${T}/${a!.id}`, {
      method: 'PUT',
      key: writer.key,
      headers: XML_IO,
      body: '<task><status>complete</status></task>',
    });
    expect(done.status).toBe(200);
    expect(childNames(done.text, 'task')).toEqual([
      'createTime',
      'finishTime',
      'finishedBy',
      'id',
      'status',
      'text',
    ]);
    expect(done.text).toContain(
      `<finishedBy><email>${writer.email}</email><id>${writer.id}</id><name>ladder-readwrite Tester</name><userName>${writer.userName}</userName></finishedBy>`,
    );
    expect(done.text).toMatch(/<finishTime>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d<\/finishTime>/);
    expect((await api(`${T}/${a!.id}`, { key: owner.key })).json).toMatchObject({
      status: 'complete',
      text: 'first',
      finishedBy: { id: writer.id },
    });

    // Partial, order free; read-only and unknown elements are ignored; reopening clears the finish fields.
    const reopened = await api(`${T}/${a!.id}`, {
      method: 'PUT',
      key: owner.key,
      headers: XML_IO,
      body: '<task><text>Again &amp; &lt;again&gt;</text><id>999</id><colour>red</colour><status>incomplete</status></task>',
    });
    expect(reopened.status).toBe(200);
    expect(reopened.text).toBe(
      `${head}<task><createTime>${a!.createTime}</createTime><id>${a!.id}</id><status>incomplete</status><text>Again &amp; &lt;again&gt;</text></task>`,
    );
    expect((await api(`${T}/${a!.id}`, { key: owner.key })).json.text).toBe('Again & <again>');

    // Each child of the root is one item: an id as text, or an object with an id.
    const reordered = await api(T, {
      method: 'PUT',
      key: writer.key,
      headers: XML_IO,
      body: `<tasks><task>${b!.id}</task><task><id>${a!.id}</id></task></tasks>`,
    });
    expect(reordered.status).toBe(200);
    expect(reordered.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?><tasks><items><task>/);
    expect(childNames(reordered.text, 'tasks')).toEqual([
      'items',
      'page',
      'pageSize',
      'totalItems',
      'totalPages',
    ]);
    expect(childNames(reordered.text, 'items')).toEqual(['task', 'task']);
    expect(
      [...reordered.text.matchAll(/<task><createTime>[^<]*<\/createTime><id>(\d+)<\/id>/g)].map((m) =>
        Number(m[1]),
      ),
    ).toEqual([b!.id, a!.id]);
    expect(reordered.text).toMatch(
      /<\/items><page>1<\/page><pageSize>100<\/pageSize><totalItems>2<\/totalItems><totalPages>1<\/totalPages><\/tasks>$/,
    );
    expect((await api(T, { key: owner.key })).json.items.map((t: { id: number }) => t.id)).toEqual([
      b!.id,
      a!.id,
    ]);

    const partial = await api(T, {
      method: 'PUT',
      key: owner.key,
      headers: XML_IO,
      body: `<tasks><task>${b!.id}</task></tasks>`,
    });
    expect(partial.status).toBe(400);
    expect(partial.text).toContain('<status>400</status>');
    expect((await api(T, { key: owner.key })).json.items.map((t: { id: number }) => t.id)).toEqual([
      b!.id,
      a!.id,
    ]);
  });
});
