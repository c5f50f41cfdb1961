import { api, createProject, signUp, XML_HEADERS, type SignedUp } from './support';

/**
 * Conditional requests on every single resource (issue 17): a strong ETag from the version each service keeps,
 * `If-None-Match` → 304, a stale `If-Match` → 412 with nothing written, in JSON and XML, and exact under
 * concurrency (the check is the write's own, in its transaction).
 */
jest.setTimeout(60_000);

const ETAG = /^"v\d+-[0-9a-f]{16}"$/;

let owner: SignedUp;
let P: string;
let S: string;
const ids: Record<string, number> = {};

interface Kind {
  name: string;
  path: () => string;
  /** Two different updates, so each PUT changes something. */
  updates: [Record<string, unknown>, Record<string, unknown>];
  xmlUpdate: string;
}

const KINDS: Kind[] = [
  {
    name: 'project',
    path: () => P,
    updates: [{ description: 'first' }, { description: 'second' }],
    xmlUpdate: '<project><description>xml</description></project>',
  },
  {
    name: 'phase',
    path: () => `${P}/phases/${ids.phase}`,
    updates: [{ description: 'first' }, { description: 'second' }],
    xmlUpdate: '<phase><description>xml</description></phase>',
  },
  {
    name: 'story',
    path: () => S,
    updates: [{ text: 'first' }, { text: 'second' }],
    xmlUpdate: '<story><text>xml</text></story>',
  },
  {
    name: 'task',
    path: () => `${S}/tasks/${ids.task}`,
    updates: [{ text: 'first' }, { text: 'second' }],
    xmlUpdate: '<task><text>xml</text></task>',
  },
  {
    name: 'comment',
    path: () => `${S}/comments/${ids.comment}`,
    updates: [{ text: 'first' }, { text: 'second' }],
    xmlUpdate: '<comment><text>xml</text></comment>',
  },
  {
    name: 'tag',
    path: () => `${P}/tags/${ids.tag}`,
    updates: [{ name: 'first' }, { name: 'second' }],
    xmlUpdate: '<tag><name>xml</name></tag>',
  },
  {
    name: 'role',
    path: () => `${P}/roles/${ids.role}`,
    updates: [{ name: 'First role' }, { name: 'Second role' }],
    xmlUpdate: '<role><name>Xml role</name></role>',
  },
  {
    name: 'attachment',
    path: () => `${S}/attachments/${ids.attachment}`,
    updates: [{ filename: 'first.txt' }, { filename: 'second.txt' }],
    xmlUpdate: '<attachment><filename>xml.txt</filename></attachment>',
  },
];

const created = async (path: string, body: Record<string, unknown>) => {
  const res = await api(path, { key: owner.key, method: 'POST', body });
  if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
  return res.json as { id: number };
};

const get = (path: string, headers: Record<string, string> = {}) => api(path, { key: owner.key, headers });
const put = (path: string, body: Record<string, unknown> | string, headers: Record<string, string> = {}) =>
  api(path, { key: owner.key, method: 'PUT', body, headers });
const remove = (path: string, headers: Record<string, string> = {}) =>
  api(path, { key: owner.key, method: 'DELETE', headers });

beforeAll(async () => {
  owner = await signUp('etag');
  const project = await createProject(owner.key, 'Conditional');
  P = `/api/v1/projects/${project.id}`;
  ids.story = (await created(`${P}/stories`, { text: 'Conditional story' })).id;
  S = `${P}/stories/${ids.story}`;
  ids.phase = (await created(`${P}/phases`, { name: 'Review', description: 'Second look' })).id;
  ids.task = (await created(`${S}/tasks`, { text: 'A task' })).id;
  ids.comment = (await created(`${S}/comments`, { text: 'A comment' })).id;
  ids.tag = (await created(`${P}/tags`, { name: 'conditional' })).id;
  ids.role = (await created(`${P}/roles`, { name: 'Reviewers', access: 'read' })).id;
  const form = new FormData();
  form.append('attachment', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
  const upload = await api(`${S}/attachments`, { key: owner.key, method: 'POST', body: form });
  expect(upload.status).toBe(200);
  ids.attachment = upload.json.items[0].id;
});

describe.each(KINDS)('conditional requests on a $name', (kind) => {
  it('GET has a strong ETag per representation; If-None-Match with it → 304 without a body', async () => {
    const json = await get(kind.path());
    expect(json.status).toBe(200);
    const etag = json.headers.get('etag') ?? '';
    expect(etag).toMatch(ETAG);
    const xml = await get(kind.path(), XML_HEADERS);
    expect(xml.headers.get('etag')).toMatch(ETAG);
    expect(xml.headers.get('etag')).not.toBe(etag);

    const unchanged = await get(kind.path(), { 'If-None-Match': etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    expect(unchanged.headers.get('etag')).toBe(etag);
    // The XML copy's tag does not stand for the JSON representation.
    expect((await get(kind.path(), { 'If-None-Match': xml.headers.get('etag')! })).status).toBe(200);
  });

  it('PUT with the current ETag writes; with a stale one → 412 and nothing written (JSON and XML)', async () => {
    const before = await get(kind.path());
    const stale = before.headers.get('etag')!;
    const first = await put(kind.path(), kind.updates[0], { 'If-Match': stale });
    expect(first.status).toBe(200);
    const fresh = first.headers.get('etag')!;
    expect(fresh).toMatch(ETAG);
    expect(fresh).not.toBe(stale);

    const refused = await put(kind.path(), kind.updates[1], { 'If-Match': stale });
    expect(refused.status).toBe(412);
    expect(refused.json).toMatchObject({ status: 412, type: 'urn:flowboard:problem:precondition-failed' });
    const refusedXml = await put(kind.path(), kind.xmlUpdate, {
      'If-Match': stale,
      'Content-Type': 'application/xml',
      Accept: 'application/xml',
    });
    expect(refusedXml.status).toBe(412);
    expect(refusedXml.text).toMatch(/<error>.*<status>412<\/status>/s);

    const after = await get(kind.path());
    expect(after.text).toBe(first.text);
    expect(after.headers.get('etag')).toBe(fresh);

    // The XML representation's tag names the same version: it is as good as the JSON one for If-Match.
    const xmlTag = (await get(kind.path(), XML_HEADERS)).headers.get('etag')!;
    const second = await put(kind.path(), kind.updates[1], { 'If-Match': xmlTag });
    expect(second.status).toBe(200);
  });

  it('If-Match: * and no If-Match write unconditionally', async () => {
    expect((await put(kind.path(), kind.updates[0], { 'If-Match': '*' })).status).toBe(200);
    expect((await put(kind.path(), kind.updates[1])).status).toBe(200);
  });
});

describe('conditional deletes and concurrent writes', () => {
  it('an If-Match tag this API did not make, or a weak one, never matches: 412', async () => {
    const story = await created(`${P}/stories`, { text: 'Foreign tags' });
    const path = `${P}/stories/${story.id}`;
    const etag = (await get(path)).headers.get('etag')!;
    for (const tag of ['"some-other-tag"', `W/${etag}`]) {
      const res = await put(path, { text: 'changed' }, { 'If-Match': tag });
      expect([tag, res.status]).toEqual([tag, 412]);
    }
    expect((await get(path)).json.text).toBe('Foreign tags');
  });

  it('a missing resource is 404 whatever If-Match says', async () => {
    const res = await put(`${P}/stories/999999`, { text: 'x' }, { 'If-Match': '"v1-0000000000000000"' });
    expect(res.status).toBe(404);
  });

  it('a story moved by eight clients with the same If-Match moves once: one 200, seven 412', async () => {
    const phases = (await get(`${P}?with=phases`)).json.phases as Array<{ id: number }>;
    const story = await created(`${P}/stories`, { text: 'Contended' });
    const path = `${P}/stories/${story.id}`;
    const etag = (await get(path)).headers.get('etag')!;
    const moves = await Promise.all(
      [1, 2, 3, 1, 2, 3, 1, 2].map((i) => put(path, { phase: phases[i]!.id }, { 'If-Match': etag })),
    );
    expect(moves.map((m) => m.status).sort()).toEqual([200, 412, 412, 412, 412, 412, 412, 412]);
    const milestones = (await get(`${path}?with=milestones`)).json.milestones as unknown[];
    expect(milestones).toHaveLength(2); // the backlog's, then the one move
  });

  it('DELETE with a stale If-Match → 412 and the resource stays; with the current one it goes', async () => {
    // Children before parents; the project last.
    for (const name of ['comment', 'task', 'attachment', 'tag', 'role', 'phase', 'story', 'project']) {
      const kind = KINDS.find((k) => k.name === name)!;
      const current = (await get(kind.path())).headers.get('etag')!;
      const stale = current.replace(/^"v(\d+)-/, (_m, v: string) => `"v${Number(v) - 1}-`);
      const refused = await remove(kind.path(), { 'If-Match': stale });
      expect([name, refused.status]).toEqual([name, 412]);
      expect((await get(kind.path())).status).toBe(200);
      const deleted = await remove(kind.path(), { 'If-Match': current });
      expect([name, deleted.status]).toEqual([name, 200]);
      if (name !== 'project') expect((await get(kind.path())).status).toBe(404);
    }
  });
});
