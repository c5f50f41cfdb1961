import { api, childNames, createProject, signUp, sorted, XML_HEADERS, type SignedUp } from './support';

/**
 * Comments through the gateway against real boards and membership (spec "Comments", api-compat §5.6): create
 * (the caller is the author), list by createTime, get, update by the author only (403 otherwise), delete by the
 * author or a project admin, `with=comments` on stories, XML, and write access.
 */
jest.setTimeout(60_000);

let owner: SignedUp;
let writer: SignedUp;
let other: SignedUp;
let reader: SignedUp;
let P: string;
let S: string;

async function join(member: SignedUp, access: string) {
  const role = await api(`${P}/roles`, { method: 'POST', key: owner.key, body: { name: access, access } });
  expect(role.status).toBe(200);
  const joined = await api(`${P}/roles/${role.json.id}/members`, {
    method: 'POST',
    key: owner.key,
    body: { userName: member.userName },
  });
  expect(joined.status).toBe(200);
}

beforeAll(async () => {
  [owner, writer, other, reader] = (await Promise.all(
    ['c-owner', 'c-writer', 'c-other', 'c-reader'].map((p) => signUp(p)),
  )) as [SignedUp, SignedUp, SignedUp, SignedUp];
  P = `/api/v1/projects/${(await createProject(owner.key)).id}`;
  await join(writer, 'readwrite');
  await join(other, 'readwrite');
  await join(reader, 'read');
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
      name: 'c-writer Tester',
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

  it('validates text; a read member gets 403 on writes; where has no properties', async () => {
    expect((await post(owner.key, '  ')).status).toBe(400);
    expect((await post(reader.key, 'nope')).status).toBe(403);
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
});
