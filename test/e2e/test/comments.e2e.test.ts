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
 * Comments through the gateway against real boards and membership (spec "Comments", docs/compat.md §5.6):
 * create (the caller is the author), list by createTime, get, update by the author only (403 otherwise),
 * delete by the author or a project admin, `with=comments` on stories, XML, and write access.
 */
jest.setTimeout(60_000);

let owner: SignedUp;
let writer: SignedUp;
let other: SignedUp;
let reader: SignedUp;
let callers: Callers;
let P: string;
let S: string;

beforeAll(async () => {
  [owner, other] = await Promise.all([signUp('c-owner'), signUp('c-other')]);
  const project = await createProject(owner.key);
  P = `/api/v1/projects/${project.id}`;
  const ladder = await accessLadderUsers(owner, project.id);
  callers = ladder.callers;
  ({ readwrite: writer, read: reader } = ladder.users);
  // A second ReadWrite member (the default Members role), to edit and delete someone else's comment.
  expect((await api(`${P}/members`, { method: 'POST', key: owner.key, body: other.id })).status).toBe(200);
  const story = await api(`${P}/stories`, {
    method: 'POST',
    key: owner.key,
    body: { text: 'Comments story' },
  });
  S = `${P}/stories/${story.json.id}`;
});

const post = (key: string, text: unknown) => api(`${S}/comments`, { method: 'POST', key, body: { text } });

describe('comments end to end', () => {
  it('creates with the caller as author and lists by createTime', async () => {
    const first = await post(writer.key, 'First!');
    expect(first.status).toBe(200);
    expect(Object.keys(first.json)).toEqual(['id', 'text', 'createTime', 'author']);
    expect(first.json.author).toEqual({
      id: writer.id,
      name: 'ladder-readwrite Tester',
      userName: writer.userName,
      email: writer.email,
    });
    const second = await post(owner.key, 'Second');
    const list = await api(`${S}/comments`, { key: reader.key });
    expect(list.status).toBe(200);
    expect(list.json.totalItems).toBeGreaterThanOrEqual(2);
    const ids = list.json.items.map((c: { id: number }) => c.id);
    expect(ids.indexOf(first.json.id)).toBeLessThan(ids.indexOf(second.json.id));
    const got = await api(`${S}/comments/${first.json.id}`, { key: reader.key });
    expect(got.json.text).toBe('First!');
  });

  it('only the author edits; the author or an admin deletes', async () => {
    const c = await post(writer.key, 'Mine');
    const byOther = await api(`${S}/comments/${c.json.id}`, {
      method: 'PUT',
      key: other.key,
      body: { text: 'x' },
    });
    expect(byOther.status).toBe(403);
    const byOwner = await api(`${S}/comments/${c.json.id}`, {
      method: 'PUT',
      key: owner.key,
      body: { text: 'x' },
    });
    expect(byOwner.status).toBe(403);
    const edited = await api(`${S}/comments/${c.json.id}`, {
      method: 'PUT',
      key: writer.key,
      body: { text: 'Edited' },
    });
    expect(edited.status).toBe(200);
    expect(edited.json.text).toBe('Edited');

    expect((await api(`${S}/comments/${c.json.id}`, { method: 'DELETE', key: other.key })).status).toBe(403);
    expect((await api(`${S}/comments/${c.json.id}`, { method: 'DELETE', key: owner.key })).status).toBe(200);
    expect((await api(`${S}/comments/${c.json.id}`, { key: owner.key })).status).toBe(404);

    const own = await post(other.key, 'Own');
    expect((await api(`${S}/comments/${own.json.id}`, { method: 'DELETE', key: other.key })).status).toBe(
      200,
    );
  });

  it('access matrix: Read to read, ReadWrite to write, the author to edit, the author or an admin to delete', async () => {
    const [edited, deleted] = [await post(owner.key, 'Edit me'), await post(owner.key, 'Delete me')];
    const status = async (path: string, key: string | undefined, method = 'GET', body?: unknown) =>
      (await api(path, { key, method, body })).status;
    // The owner (admin, last in the ladder) wrote both comments: it may edit and delete them, no one else may.
    const matrix = await accessMatrix(callers, async (key) => [
      await status(`${S}/comments`, key),
      await status(`${S}/comments/${edited.json.id}`, key),
      await status(`${S}/comments`, key, 'POST', {}), // no text
      await status(`${S}/comments/${edited.json.id}`, key, 'PUT', { text: 'Edited' }),
      await status(`${S}/comments/999999999`, key, 'DELETE'),
      await status(`${S}/comments/${deleted.json.id}`, key, 'DELETE'),
    ]);
    expect(matrix).toEqual({
      anonymous: [401, 401, 401, 401, 401, 401],
      stranger: [404, 404, 404, 404, 404, 404],
      none: [403, 403, 403, 403, 403, 403],
      read: [200, 200, 403, 403, 403, 403],
      readwrite: [200, 200, 400, 403, 404, 403],
      admin: [200, 200, 400, 200, 404, 200],
    });
  });

  it('validates text; where has no properties', async () => {
    expect((await post(owner.key, '  ')).status).toBe(400);
    const where = await api(`${S}/comments?where=text:x`, { key: owner.key });
    expect(where.status).toBe(400);
    expect((await api(`${P}/stories/99999/comments`, { key: owner.key })).status).toBe(404);
  });

  it('with=comments on stories; XML', async () => {
    await post(owner.key, 'For the enrichment');
    const story = await api(`${S}?with=comments`, { key: owner.key });
    expect(story.status).toBe(200);
    expect(Array.isArray(story.json.comments)).toBe(true);
    expect(story.json.comments.at(-1).text).toBe('For the enrichment');
    const bare = await api(`${P}/stories`, { method: 'POST', key: owner.key, body: { text: 'Quiet' } });
    const quiet = await api(`${P}/stories?with=comments,tasks&where=id:${bare.json.id}`, { key: owner.key });
    expect(quiet.json.items[0]).toMatchObject({ comments: [], tasks: [] });

    const xml = await api(`${S}/comments`, {
      method: 'POST',
      key: owner.key,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: '<comment><text>From XML</text></comment>',
    });
    expect(xml.status).toBe(200);
    expect(sorted(childNames(xml.text, 'comment'))).toEqual(sorted(['id', 'text', 'createTime', 'author']));
    const page = await api(`${S}/comments`, { key: owner.key, headers: XML_HEADERS });
    expect(page.text).toMatch(/<comments><items><comment>/);
  });

  it('XML: GET and PUT one comment (an XML body, the author only), alphabetical children', async () => {
    const c = await post(writer.key, 'Say it in XML');
    expect(c.status).toBe(200);
    const one = `${S}/comments/${c.json.id}`;
    const author = `<author><email>${writer.email}</email><id>${writer.id}</id><name>ladder-readwrite Tester</name><userName>${writer.userName}</userName></author>`;

    const got = await api(one, { key: reader.key, headers: XML_HEADERS });
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(got.text).toBe(
      `<?xml version="1.0" encoding="utf-8"?><comment>${author}<createTime>${c.json.createTime}</createTime><id>${c.json.id}</id><text>Say it in XML</text></comment>`,
    );

    // Read-only elements (id, author, createTime) are ignored; only text changes.
    const edited = await api(one, {
      method: 'PUT',
      key: writer.key,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: `<?xml version="1.0"?><comment><id>1</id><author><id>${owner.id}</id></author><text>Edited &lt;b&gt; &amp; co</text><createTime>2001-01-01T00:00:00</createTime></comment>`,
    });
    expect(edited.status).toBe(200);
    expect(edited.text).toBe(
      `<?xml version="1.0" encoding="utf-8"?><comment>${author}<createTime>${c.json.createTime}</createTime><id>${c.json.id}</id><text>Edited &lt;b&gt; &amp; co</text></comment>`,
    );
    expect((await api(one, { key: owner.key })).json).toEqual({
      ...c.json,
      text: 'Edited <b> & co',
    });

    // Not the author: 403, as an XML problem, and nothing changes.
    const byOther = await api(one, {
      method: 'PUT',
      key: other.key,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: '<comment><text>Hijacked</text></comment>',
    });
    expect(byOther.status).toBe(403);
    expect(byOther.text).toContain('<status>403</status>');
    expect(byOther.text).toContain('<type>urn:flowboard:problem:forbidden</type>');
    expect((await api(one, { key: owner.key })).json.text).toBe('Edited <b> & co');
  });
});
