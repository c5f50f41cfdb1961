import { uniqueSuffix } from '@flowboard/testing';
import {
  accessLadder,
  accessMatrix,
  api,
  childNames,
  createProject,
  signUp,
  XML_HEADERS,
  type Callers,
  type SignedUp,
} from './support';

/**
 * Tags through the gateway against real boards and membership (spec "Tags", docs/compat.md §4.2, §4.3, §5.3,
 * §5.5): create (409 on a duplicate name ignoring case), get by id or URL-encoded name, rename (stays on its
 * stories), delete (comes off its stories), the tag's stories, the story-scoped S/tags endpoints, `tags` on
 * story create (ignored on PUT S), `with=tags` / `with=stories`, `where=tag:`, JSON and XML both ways, and
 * the access matrix.
 */
jest.setTimeout(120_000);

let owner: SignedUp;
let callers: Callers;
let P: string;

const XML_IO = { 'Content-Type': 'application/xml', Accept: 'application/xml' };
const ids = (items: Array<{ id: number }>) => items.map((i) => i.id);
const names = (items: Array<{ name: string }>) => items.map((i) => i.name);
const path = (name: string) => encodeURIComponent(name);

async function newTag(name: string): Promise<{ id: number; name: string }> {
  const res = await api(`${P}/tags`, { method: 'POST', key: owner.key, body: { name } });
  expect(res.status).toBe(200);
  return res.json;
}

async function newStory(body: object = {}): Promise<{ id: number; text: string; tags?: unknown }> {
  const res = await api(`${P}/stories?with=tags`, {
    method: 'POST',
    key: owner.key,
    body: { text: `Story ${uniqueSuffix()}`, ...body },
  });
  expect(res.status).toBe(200);
  return res.json;
}

beforeAll(async () => {
  owner = await signUp('tag-owner');
  const project = await createProject(owner.key);
  P = `/api/v1/projects/${project.id}`;
  callers = await accessLadder(owner, project.id);
});

describe('tags end to end', () => {
  it('creates with a trimmed name, gets by id or URL-encoded name, refuses a duplicate ignoring case (409)', async () => {
    const created = await api(`${P}/tags`, {
      method: 'POST',
      key: callers.readwrite,
      body: { name: '  Solid as a Rock ', id: 77, stories: [] },
    });
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(created.json)).toEqual(['id', 'name']);
    expect(created.json.name).toBe('Solid as a Rock');

    for (const ref of [String(created.json.id), path('solid as a rock'), path('SOLID AS A ROCK')]) {
      const got = await api(`${P}/tags/${ref}`, { key: callers.read });
      expect(got.status).toBe(200);
      expect(got.json).toEqual(created.json);
    }

    const dup = await api(`${P}/tags`, { method: 'POST', key: owner.key, body: { name: 'solid AS A rock' } });
    expect(dup.status).toBe(409);
    expect(dup.json.type).toBe('urn:flowboard:problem:conflict');
    expect(dup.json.detail).toContain('solid AS A rock');

    const missing = await api(`${P}/tags`, { method: 'POST', key: owner.key, body: { name: '  ' } });
    expect(missing.status).toBe(400);
    expect(missing.json.type).toBe('urn:flowboard:problem:invalid-field');
    expect(missing.json.detail).toContain("'name'");
    const long = await api(`${P}/tags`, { method: 'POST', key: owner.key, body: { name: 'x'.repeat(201) } });
    expect(long.status).toBe(400);
    expect((await api(`${P}/tags/${path('no such tag')}`, { key: owner.key })).status).toBe(404);
    expect((await api(`${P}/tags/999999999999`, { key: owner.key })).status).toBe(404);
  });

  it('a number in the path is an id first, then a name', async () => {
    const numeric = await newTag('31415926535');
    const got = await api(`${P}/tags/31415926535`, { key: owner.key });
    expect(got.json).toEqual(numeric);
    const byId = await api(`${P}/tags/${numeric.id}`, { key: owner.key });
    expect(byId.json).toEqual(numeric);
  });

  it('lists by id in pages; with=stories is always an array of {id, text}; where has no properties', async () => {
    const a = await newTag(`list-a-${uniqueSuffix()}`);
    const b = await newTag(`list-b-${uniqueSuffix()}`);
    const story = await newStory({ tags: [a.id] });

    const list = await api(`${P}/tags?with=stories`, { key: callers.read });
    expect(list.status).toBe(200);
    expect(Object.keys(list.json)).toEqual(['page', 'pageSize', 'totalPages', 'totalItems', 'items']);
    const items = list.json.items as Array<{ id: number; name: string; stories: unknown[] }>;
    expect(ids(items)).toEqual([...ids(items)].sort((x, y) => x - y));
    const gotA = items.find((t) => t.id === a.id)!;
    expect(Object.keys(gotA)).toEqual(['id', 'name', 'stories']);
    expect(gotA.stories).toEqual([{ id: story.id, text: story.text }]);
    expect(items.find((t) => t.id === b.id)!.stories).toEqual([]);

    const plain = await api(`${P}/tags`, { key: owner.key });
    expect(Object.keys(plain.json.items[0])).toEqual(['id', 'name']);

    const total = list.json.totalItems as number;
    const page2 = await api(`${P}/tags?page=2&pageSize=1`, { key: owner.key });
    expect(page2.json).toMatchObject({ page: 2, pageSize: 1, totalPages: total, totalItems: total });
    expect(page2.json.items).toEqual([{ id: items[1]!.id, name: items[1]!.name }]);

    const where = await api(`${P}/tags?where=name:x`, { key: owner.key });
    expect(where.status).toBe(400);
    expect(where.json.type).toBe('urn:flowboard:problem:invalid-filter');
    const unknown = await api(`${P}/tags?with=tasks`, { key: owner.key });
    expect(unknown.status).toBe(400);
    expect(unknown.json.type).toBe('urn:flowboard:problem:unknown-enrichment');
    const single = await api(`${P}/tags/${a.id}?with=everything`, { key: owner.key });
    expect(single.json).toEqual({ ...a, stories: [{ id: story.id, text: story.text }] });
  });

  it('rename keeps the tag on its stories; a taken name is 409; a body without name changes nothing', async () => {
    const tag = await newTag(`old-${uniqueSuffix()}`);
    const taken = await newTag(`taken-${uniqueSuffix()}`);
    const story = await newStory({ tags: [tag.name] });
    const newName = `renamed ${uniqueSuffix()}`;
    const renamed = await api(`${P}/tags/${path(tag.name)}?with=stories`, {
      method: 'PUT',
      key: callers.readwrite,
      body: { id: 1, name: ` ${newName} ` },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toEqual({
      id: tag.id,
      name: newName,
      stories: [{ id: story.id, text: story.text }],
    });
    const onStory = await api(`${P}/stories/${story.id}?with=tags`, { key: owner.key });
    expect(onStory.json.tags).toEqual([{ id: tag.id, name: newName }]);
    expect((await api(`${P}/tags/${path(tag.name)}`, { key: owner.key })).status).toBe(404);

    const clash = await api(`${P}/tags/${tag.id}`, {
      method: 'PUT',
      key: owner.key,
      body: { name: taken.name.toUpperCase() },
    });
    expect(clash.status).toBe(409);
    const same = await api(`${P}/tags/${tag.id}`, { method: 'PUT', key: owner.key, body: {} });
    expect(same.json).toEqual({ id: tag.id, name: newName });
    const blank = await api(`${P}/tags/${tag.id}`, { method: 'PUT', key: owner.key, body: { name: '' } });
    expect(blank.status).toBe(400);
    // 404 before 400: an unknown tag with a bad body is 404.
    const order = await api(`${P}/tags/${path('nothing here')}`, {
      method: 'PUT',
      key: owner.key,
      headers: { 'Content-Type': 'application/json' },
      body: '{not json',
    });
    expect(order.status).toBe(404);
  });

  it('delete answers 200 with an empty body and takes the tag off its stories', async () => {
    const tag = await newTag(`doomed-${uniqueSuffix()}`);
    const story = await newStory({ tags: [tag.id] });
    const del = await api(`${P}/tags/${path(tag.name)}`, { method: 'DELETE', key: callers.readwrite });
    expect(del.status).toBe(200);
    expect(del.text).toBe('');
    expect(del.headers.get('content-type')).toBeNull();
    expect((await api(`${P}/tags/${tag.id}`, { key: owner.key })).status).toBe(404);
    expect((await api(`${P}/stories/${story.id}?with=tags`, { key: owner.key })).json.tags).toEqual([]);
    expect((await api(`${P}/tags/${tag.id}`, { method: 'DELETE', key: owner.key })).status).toBe(404);
  });

  it("the tag's stories: GET (where, paging, with), POST one reference, PUT replaces, DELETE one", async () => {
    const tag = await newTag(`focus-${uniqueSuffix()}`);
    const T = `${P}/tags/${tag.id}/stories`;
    const a = await newStory({ text: 'Apple pie' });
    const b = await newStory({ text: 'Banana split' });
    const c = await newStory({ text: 'Cherry tart' });

    const added = await api(`${T}?with=tags`, { method: 'POST', key: callers.readwrite, body: { id: b.id } });
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({ page: 1, pageSize: 100, totalPages: 1, totalItems: 1 });
    expect(added.json.items[0]).toMatchObject({ id: b.id, text: 'Banana split', tags: [tag] });
    expect((await api(T, { method: 'POST', key: owner.key, body: b.id })).json.totalItems).toBe(1);
    const list = await api(T, { method: 'POST', key: owner.key, body: [a.id] });
    expect(list.status).toBe(400);
    const unknownStory = await api(T, { method: 'POST', key: owner.key, body: 999_999 });
    expect(unknownStory.status).toBe(400);
    expect(unknownStory.json.type).toBe('urn:flowboard:problem:invalid-reference');

    const replaced = await api(T, { method: 'PUT', key: owner.key, body: [{ id: c.id }, a.id] });
    expect(replaced.status).toBe(200);
    expect(ids(replaced.json.items)).toEqual([a.id, c.id]); // board order
    expect(Object.keys(replaced.json.items[0])).not.toContain('tags');
    const partial = await api(T, { method: 'PUT', key: owner.key, body: [b.id, 999_999] });
    expect(partial.status).toBe(400);
    expect(ids((await api(T, { key: callers.read })).json.items)).toEqual([a.id, c.id]);

    const filtered = await api(`${T}?where=${path('text:cherry')}`, { key: owner.key });
    expect(ids(filtered.json.items)).toEqual([c.id]);
    const paged = await api(`${T}?page=2&pageSize=1`, { key: owner.key });
    expect(paged.json).toMatchObject({ page: 2, totalPages: 2, totalItems: 2 });
    expect(ids(paged.json.items)).toEqual([c.id]);
    expect((await api(`${T}?where=colour:red`, { key: owner.key })).status).toBe(400);

    const removed = await api(`${T}/${a.id}`, { method: 'DELETE', key: owner.key });
    expect(removed.status).toBe(200);
    expect(removed.text).toBe('');
    expect(ids((await api(T, { key: owner.key })).json.items)).toEqual([c.id]);
    expect((await api(`${T}/${a.id}`, { method: 'DELETE', key: owner.key })).status).toBe(404);
    expect((await api(`${P}/tags/${path('missing tag')}/stories`, { key: owner.key })).status).toBe(404);
  });

  it('story-scoped S/tags: GET, POST (an unknown name creates the tag), PUT replaces, DELETE S/tags/{tag}', async () => {
    const story = await newStory();
    const S = `${P}/stories/${story.id}`;
    const known = await newTag(`known-${uniqueSuffix()}`);
    const fresh = `fresh ${uniqueSuffix()}`;

    const empty = await api(`${S}/tags`, { key: callers.read });
    expect(empty.json).toEqual({ page: 1, pageSize: 100, totalPages: 0, totalItems: 0, items: [] });
    const added = await api(`${S}/tags`, {
      method: 'POST',
      key: callers.readwrite,
      body: JSON.stringify(fresh),
    });
    expect(added.status).toBe(200);
    expect(names(added.json.items)).toEqual([fresh]);
    const createdTag = await api(`${P}/tags/${path(fresh)}`, { key: owner.key });
    expect(createdTag.status).toBe(200);
    const byId = await api(`${S}/tags`, { method: 'POST', key: owner.key, body: { id: known.id } });
    expect(ids(byId.json.items)).toEqual([known.id, createdTag.json.id].sort((x, y) => x - y));
    expect((await api(`${S}/tags`, { method: 'POST', key: owner.key, body: [known.id] })).status).toBe(400);
    const badId = await api(`${S}/tags`, { method: 'POST', key: owner.key, body: { id: 999_999_999_999 } });
    expect(badId.status).toBe(400);
    expect(badId.json.type).toBe('urn:flowboard:problem:invalid-reference');

    const third = `third ${uniqueSuffix()}`;
    const replaced = await api(`${S}/tags?with=stories`, {
      method: 'PUT',
      key: owner.key,
      body: [{ name: third }, { id: known.id }],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.json.totalItems).toBe(2);
    expect(names(replaced.json.items).sort()).toEqual([known.name, third].sort());
    expect(replaced.json.items[0].stories).toEqual([{ id: story.id, text: story.text }]);

    const del = await api(`${S}/tags/${path(third.toUpperCase())}`, { method: 'DELETE', key: owner.key });
    expect(del.status).toBe(200);
    expect(del.text).toBe('');
    expect(names((await api(`${S}/tags`, { key: owner.key })).json.items)).toEqual([known.name]);
    expect((await api(`${S}/tags/${path(third)}`, { method: 'DELETE', key: owner.key })).status).toBe(404);
    expect((await api(`${P}/stories/999999/tags`, { key: owner.key })).status).toBe(404);
    // The story's own 404 comes before the body's 400.
    const order = await api(`${P}/stories/999999/tags`, {
      method: 'PUT',
      key: owner.key,
      headers: { 'Content-Type': 'application/json' },
      body: '{bad',
    });
    expect(order.status).toBe(404);
  });

  it('tags on story create (ids, names, objects; unknown id → 400), ignored on PUT S; with=tags; where=tag:', async () => {
    const known = await newTag(`create-known-${uniqueSuffix()}`);
    const brandNew = `brand new ${uniqueSuffix()}`;
    const story = await newStory({ tags: [known.id, brandNew, { name: known.name.toUpperCase() }] });
    expect(story.tags).toHaveLength(2);
    const created = await api(`${P}/tags/${path(brandNew)}`, { key: owner.key });
    expect(created.status).toBe(200);
    expect(story.tags).toEqual([known, created.json].sort((x, y) => x.id - y.id));
    expect(Object.keys(story).slice(-1)).toEqual(['tags']);

    const unknownId = await api(`${P}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'never', tags: [999_999_999_999, `never ${uniqueSuffix()}`] },
    });
    expect(unknownId.status).toBe(400);
    expect(unknownId.json.type).toBe('urn:flowboard:problem:invalid-reference');
    const notArray = await api(`${P}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'x', tags: 'a' },
    });
    expect(notArray.status).toBe(400);

    const ignored = `ignored ${uniqueSuffix()}`;
    const put = await api(`${P}/stories/${story.id}?with=tags`, {
      method: 'PUT',
      key: owner.key,
      body: { text: 'Renamed story', tags: [ignored] },
    });
    expect(put.status).toBe(200);
    expect(put.json.tags).toEqual(story.tags);
    expect((await api(`${P}/tags/${path(ignored)}`, { key: owner.key })).status).toBe(404);

    const other = await newStory();
    const listed = await api(`${P}/stories?with=tags&pageSize=1000`, { key: callers.read });
    const byId = new Map(
      (listed.json.items as Array<{ id: number; tags: unknown }>).map((s) => [s.id, s.tags]),
    );
    expect(byId.get(story.id)).toEqual(story.tags);
    expect(byId.get(other.id)).toEqual([]);
    expect((await api(`${P}/stories/${other.id}`, { key: owner.key })).json.tags).toBeUndefined();

    const where = (w: string) => api(`${P}/stories?where=${path(w)}&pageSize=1000`, { key: owner.key });
    expect(ids((await where(`tag:"${brandNew.toUpperCase()}"`)).json.items)).toEqual([story.id]);
    expect(ids((await where(`tag:${known.id}`)).json.items)).toEqual([story.id]);
    const not = ids((await where(`not(tag:"${brandNew}")`)).json.items);
    expect(not).toContain(other.id);
    expect(not).not.toContain(story.id);
    expect((await where('tag:nothing-like-this')).json.items).toEqual([]);
  });

  it('XML: request bodies and answers (tag, tags/items/tag, stories/story, <tags />)', async () => {
    const name = `xml tag ${uniqueSuffix()}`;
    const created = await api(`${P}/tags`, {
      method: 'POST',
      key: owner.key,
      headers: XML_IO,
      body: `<?xml version="1.0"?><tag><name>${name} &amp; co</name></tag>`,
    });
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(created.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?><tag><id>\d+<\/id><name>/);
    expect(childNames(created.text, 'tag')).toEqual(['id', 'name']);
    expect(created.text).toContain(`<name>${name} &amp; co</name>`);
    const tagId = Number(/<id>(\d+)<\/id>/.exec(created.text)![1]);

    const renamed = await api(`${P}/tags/${tagId}`, {
      method: 'PUT',
      key: owner.key,
      headers: XML_IO,
      body: `<tag><id>1</id><name>${name}</name></tag>`,
    });
    expect(renamed.text).toContain(`<tag><id>${tagId}</id><name>${name}</name></tag>`);

    // An XML body with a `tags` array (ids as text, objects with name); answered in JSON on request.
    const storyXml = await api(`${P}/stories`, {
      method: 'POST',
      key: owner.key,
      headers: { 'Content-Type': 'application/xml', Accept: 'application/json' },
      body: `<story><text>From XML</text><tags><tag>${tagId}</tag><tag><name>${name} second</name></tag></tags></story>`,
    });
    expect(storyXml.status).toBe(200);
    const storyId = storyXml.json.id as number;
    const taggedXml = await api(`${P}/stories/${storyId}?with=tags`, {
      key: owner.key,
      headers: XML_HEADERS,
    });
    expect(childNames(taggedXml.text, 'tags')).toEqual(['tag', 'tag']);
    expect(childNames(taggedXml.text, 'story')).toContain('tags');
    expect(taggedXml.text).toContain(`<tags><tag><id>${tagId}</id><name>${name}</name></tag><tag><id>`);

    const bare = await newStory();
    const bareXml = await api(`${P}/stories/${bare.id}?with=tags`, { key: owner.key, headers: XML_HEADERS });
    expect(bareXml.text).toContain('<tags />');

    const list = await api(`${P}/tags?with=stories`, { key: owner.key, headers: XML_HEADERS });
    expect(list.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?><tags><items><tag>/);
    expect(childNames(list.text, 'tags')).toEqual(['items', 'page', 'pageSize', 'totalItems', 'totalPages']);
    expect(childNames(list.text, 'tag')).toEqual(['id', 'name', 'stories']);
    const withStories = await api(`${P}/tags/${tagId}?with=stories`, {
      key: owner.key,
      headers: XML_HEADERS,
    });
    expect(withStories.text).toContain(
      `<stories><story><id>${storyId}</id><text>From XML</text></story></stories>`,
    );

    const T = `${P}/tags/${tagId}/stories`;
    const addedXml = await api(T, {
      method: 'POST',
      key: owner.key,
      headers: XML_IO,
      body: `<story><id>${bare.id}</id></story>`,
    });
    expect(addedXml.status).toBe(200);
    expect(addedXml.text).toMatch(/<stories><items><story>/);
    expect(childNames(addedXml.text, 'stories')).toEqual([
      'items',
      'page',
      'pageSize',
      'totalItems',
      'totalPages',
    ]);
    expect(addedXml.text).toContain('<totalItems>2</totalItems>');
    const setXml = await api(T, {
      method: 'PUT',
      key: owner.key,
      headers: XML_IO,
      body: `<stories><story>${bare.id}</story></stories>`,
    });
    expect(setXml.status).toBe(200);
    expect(setXml.text).toContain('<totalItems>1</totalItems>');

    const S = `${P}/stories/${bare.id}`;
    const postXml = await api(`${S}/tags`, {
      method: 'POST',
      key: owner.key,
      headers: XML_IO,
      body: `<tag>${name} third</tag>`,
    });
    expect(postXml.status).toBe(200);
    expect(postXml.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?><tags><items><tag>/);
    const putXml = await api(`${S}/tags`, {
      method: 'PUT',
      key: owner.key,
      headers: XML_IO,
      body: `<tags><tag><id>${tagId}</id></tag><tag>${name} fourth</tag></tags>`,
    });
    expect(putXml.status).toBe(200);
    expect(putXml.text).toContain('<totalItems>2</totalItems>');
    expect(putXml.text).toContain(`<tag><id>${tagId}</id><name>${name}</name></tag>`);
    const emptied = await api(`${S}/tags`, {
      method: 'PUT',
      key: owner.key,
      headers: XML_IO,
      body: '<tags />',
    });
    expect(emptied.text).toContain('<items />');
  });

  it('XML: GET P/tags/{tag}/stories and GET S/tags answer exact pages (alphabetical, empty elements, unset omitted)', async () => {
    const suffix = uniqueSuffix();
    const rd = await newTag(`R&D ${suffix}`);
    const ops = await newTag(`ops ${suffix}`);
    const plain = await newStory({ tags: [rd.id, ops.id] });
    const assigned = await newStory({ tags: [rd.id], owner: owner.id, deadline: '2030-01-02' });
    const untagged = await newStory();
    const head = '<?xml version="1.0" encoding="utf-8"?>';
    const stories = (xml: string) =>
      [...xml.matchAll(/<story>[\s\S]*?<\/story>/g)].map((m) => ({
        xml: m[0],
        names: childNames(m[0], 'story'),
      }));
    const envelope = ['items', 'page', 'pageSize', 'totalItems', 'totalPages'];

    const tagged = await api(`${P}/tags/${path(rd.name)}/stories?with=details`, {
      key: callers.read,
      headers: XML_HEADERS,
    });
    expect(tagged.status).toBe(200);
    expect(tagged.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(tagged.text.startsWith(`${head}<stories><items><story>`)).toBe(true);
    expect(childNames(tagged.text, 'stories')).toEqual(envelope);
    expect(tagged.text).toMatch(
      /<\/items><page>1<\/page><pageSize>100<\/pageSize><totalItems>2<\/totalItems><totalPages>1<\/totalPages><\/stories>$/,
    );
    const [first, second] = stories(tagged.text);
    const always = [
      'color',
      'creator',
      'details',
      'id',
      'phase',
      'priority',
      'project',
      'size',
      'status',
      'text',
    ];
    expect(first!.names).toEqual(always);
    expect(first!.xml).toContain(`<id>${plain.id}</id>`);
    for (const empty of ['<details />', '<priority />', '<size />']) expect(first!.xml).toContain(empty);
    expect(second!.names).toEqual([...always, 'deadline', 'owner'].sort());
    expect(second!.xml).toContain(`<id>${assigned.id}</id>`);
    expect(second!.xml).toContain('<deadline>2030-01-02T00:00:00</deadline>');
    expect(childNames(second!.xml, 'owner')).toEqual(['email', 'id', 'name', 'userName']);
    expect(childNames(second!.xml, 'creator')).toEqual(['email', 'id', 'name', 'userName']);
    expect(childNames(second!.xml, 'phase')).toEqual(['id', 'name']);

    const paged = await api(`${P}/tags/${rd.id}/stories.xml?pageSize=1&page=2`, { key: callers.read });
    expect(paged.status).toBe(200);
    expect(stories(paged.text).map((s) => s.xml.includes(`<id>${assigned.id}</id>`))).toEqual([true]);
    expect(paged.text).toContain(
      '</items><page>2</page><pageSize>1</pageSize><totalItems>2</totalItems><totalPages>2</totalPages></stories>',
    );

    const storyTags = await api(`${P}/stories/${plain.id}/tags`, { key: callers.read, headers: XML_HEADERS });
    expect(storyTags.status).toBe(200);
    expect(storyTags.text).toBe(
      `${head}<tags><items><tag><id>${rd.id}</id><name>R&amp;D ${suffix}</name></tag><tag><id>${ops.id}</id><name>ops ${suffix}</name></tag></items>` +
        '<page>1</page><pageSize>100</pageSize><totalItems>2</totalItems><totalPages>1</totalPages></tags>',
    );
    const none = await api(`${P}/stories/${untagged.id}/tags`, { key: callers.read, headers: XML_HEADERS });
    expect(none.text).toBe(
      `${head}<tags><items /><page>1</page><pageSize>100</pageSize><totalItems>0</totalItems><totalPages>0</totalPages></tags>`,
    );
  });

  it('access: Read for reads, ReadWrite for writes; 401 anonymous, 404 stranger, 403 below the level', async () => {
    const tag = await newTag(`matrix-${uniqueSuffix()}`);
    const story = await newStory();
    const T = `${P}/tags/${tag.id}`;
    const S = `${P}/stories/${story.id}`;
    const matrix = await accessMatrix(callers, async (key) => {
      const own = `m-${uniqueSuffix()}`;
      const spare = (await api(`${P}/tags`, { method: 'POST', key: owner.key, body: { name: `${own}-x` } }))
        .json;
      return [
        (await api(`${P}/tags`, { key })).status,
        (await api(T, { key })).status,
        (await api(`${T}/stories`, { key })).status,
        (await api(`${S}/tags`, { key })).status,
        (await api(`${P}/tags`, { key, method: 'POST', body: { name: own } })).status,
        (await api(T, { key, method: 'PUT', body: { name: tag.name } })).status,
        (await api(`${T}/stories`, { key, method: 'POST', body: story.id })).status,
        (await api(`${T}/stories/${story.id}`, { key, method: 'DELETE' })).status,
        (await api(`${T}/stories`, { key, method: 'PUT', body: [story.id] })).status,
        (await api(`${S}/tags`, { key, method: 'POST', body: { name: `${own}-s` } })).status,
        (await api(`${S}/tags`, { key, method: 'PUT', body: [tag.id] })).status,
        (await api(`${S}/tags/${tag.id}`, { key, method: 'DELETE' })).status,
        (await api(`${P}/tags/${spare.id}`, { key, method: 'DELETE' })).status,
      ];
    });
    const reads = [200, 200, 200, 200];
    const writes = (status: number) => Array(9).fill(status);
    expect(matrix).toEqual({
      anonymous: Array(13).fill(401),
      stranger: Array(13).fill(404),
      none: [...Array(4).fill(403), ...writes(403)],
      read: [...reads, ...writes(403)],
      readwrite: [...reads, ...writes(200)],
      admin: [...reads, ...writes(200)],
    });
  });
});
