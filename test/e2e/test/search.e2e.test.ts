import {
  accessLadder,
  accessMatrix,
  api,
  boardsCalls,
  childNames,
  createProject,
  signUp,
  XML_HEADERS,
  type SignedUp,
} from './support';

/**
 * Full-text search (README "Search"): `GET P/search` and `GET /me/search`, over the real stack. What a search finds,
 * where it says the story matched, that it sees a write as soon as the write returns, who may search what, and its
 * 400s; in JSON and XML. The query language's corners are boards' integration tests (search.grpc.int.test.ts).
 */
jest.setTimeout(60_000);

interface Hit {
  id: number;
  text: string;
  project: { id: number; name: string };
  tags?: Array<{ name: string }>;
  match: {
    field: string;
    id?: number;
    snippet: string;
    highlights: Array<{ start: number; length: number }>;
  };
}

/** The words a hit's highlights mark, cut out of its snippet by code point. */
const marked = (hit: Hit) =>
  hit.match.highlights.map((h) => [...hit.match.snippet].slice(h.start, h.start + h.length).join(''));

describe('search', () => {
  let owner: SignedUp;
  let project: { id: number; name: string };
  let second: { id: number; name: string };
  const P = () => `/api/v1/projects/${project.id}`;
  const story = async (projectId: number, body: Record<string, unknown>) => {
    const res = await api(`/api/v1/projects/${projectId}/stories`, { key: owner.key, method: 'POST', body });
    expect(res.status).toBe(200);
    return res.json as { id: number };
  };
  const search = (query: string, key = owner.key) => api(`${P()}/search?${query}`, { key });

  beforeAll(async () => {
    owner = await signUp('search');
    project = await createProject(owner.key, 'Search one');
    second = await createProject(owner.key, 'Search two');
  });

  it('finds a word in titles, details, tags, tasks and comments, ranked, each hit saying where', async () => {
    const title = await story(project.id, { text: 'Zeppelin launch checklist' });
    const details = await story(project.id, { text: 'Hangar', details: 'The zeppelin needs a bigger door.' });
    const task = await story(project.id, { text: 'Fuel', tasks: [{ text: 'refuel the zeppelin' }] });
    const tag = await story(project.id, { text: 'Weather', tags: ['zeppelin'] });
    const commented = await story(project.id, { text: 'Crew' });
    const comment = await api(`${P()}/stories/${commented.id}/comments`, {
      key: owner.key,
      method: 'POST',
      body: { text: 'Ask the Zeppelin crew first.' },
    });
    expect(comment.status).toBe(200);
    await story(project.id, { text: 'Something else' });

    const res = await search('q=zeppelin&with=tags');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      page: 1,
      pageSize: 100,
      totalItems: 5,
      matchLimit: 1000,
      moreMatches: false,
    });
    const hits = res.json.items as Hit[];
    expect(hits[0]!.id).toBe(title.id); // a title outranks every other source
    const at = (id: number) => hits.find((h) => h.id === id)!;
    expect(at(title.id).match).toMatchObject({ field: 'text', snippet: 'Zeppelin launch checklist' });
    expect(at(title.id).match.id).toBeUndefined();
    expect(marked(at(title.id))).toEqual(['Zeppelin']);
    expect(at(details.id).match.field).toBe('details');
    expect(at(task.id).match).toMatchObject({ field: 'task', snippet: 'refuel the zeppelin' });
    expect(at(tag.id).match).toMatchObject({ field: 'tag', snippet: 'zeppelin' });
    expect(at(tag.id).tags).toEqual([expect.objectContaining({ name: 'zeppelin' })]); // with= as on any list
    expect(at(commented.id).match).toMatchObject({ field: 'comment', id: comment.json.id });
    expect(marked(at(commented.id))).toEqual(['Zeppelin']);
  });

  it('answers in XML with the match, its highlights and the limits', async () => {
    const created = await story(project.id, { text: 'Quokka habitat survey' });
    const xml = await api(`${P()}/search?q=quokka`, { key: owner.key, headers: XML_HEADERS });
    expect(xml.status).toBe(200);
    expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(childNames(xml.text, 'stories')).toEqual([
      'items',
      'matchLimit',
      'moreMatches',
      'page',
      'pageSize',
      'totalItems',
      'totalPages',
    ]);
    expect(xml.text).toContain(`<id>${created.id}</id>`);
    expect(childNames(xml.text, 'match')).toEqual(['field', 'highlights', 'score', 'snippet']);
    expect(xml.text).toContain(
      '<highlights><highlight><length>6</length><start>0</start></highlight></highlights>',
    );
    expect(xml.text).toContain('<snippet>Quokka habitat survey</snippet>');
    expect(xml.text).toContain('<moreMatches>false</moreMatches>');
  });

  it('sees a write as soon as it returns, and forgets what was changed away', async () => {
    const created = await story(project.id, { text: 'Plain card' });
    const S = `${P()}/stories/${created.id}`;
    expect((await search('q=marmalade')).json.totalItems).toBe(0);
    expect(
      (await api(S, { key: owner.key, method: 'PUT', body: { details: 'marmalade recipe' } })).status,
    ).toBe(200);
    expect((await search('q=marmalade')).json.items.map((h: Hit) => h.id)).toEqual([created.id]);
    expect((await api(S, { key: owner.key, method: 'PUT', body: { details: 'nothing' } })).status).toBe(200);
    expect((await search('q=marmalade')).json.totalItems).toBe(0);
    expect((await api(S, { key: owner.key, method: 'DELETE' })).status).toBe(200);
    expect((await search('q=plain')).json.items.map((h: Hit) => h.id)).not.toContain(created.id);
  });

  it('answers a repeated search from the response cache, and a comment, task or tag shows on the next', async () => {
    const created = await story(project.id, { text: 'Wombat ledger' });
    const S = `${P()}/stories/${created.id}`;
    const first = await search('q=wombat');
    const calls = await boardsCalls('SearchStories');
    expect((await search('q=wombat')).text).toBe(first.text);
    expect(await boardsCalls('SearchStories')).toBe(calls);
    for (const [path, body, field] of [
      ['comments', { text: 'a manatee was seen' }, 'comment'],
      ['tasks', { text: 'count the narwhals' }, 'task'],
      ['tags', { name: 'okapi' }, 'tag'],
    ] as const) {
      const word = field === 'comment' ? 'manatee' : field === 'task' ? 'narwhals' : 'okapi';
      expect((await search(`q=${word}`)).json.totalItems).toBe(0);
      expect((await api(`${S}/${path}`, { key: owner.key, method: 'POST', body })).status).toBe(200);
      const hits = (await search(`q=${word}`)).json.items as Hit[];
      expect(hits.map((h) => [h.id, h.match.field])).toEqual([[created.id, field]]);
    }
  });

  it('combines with where=, takes phrases, prefixes, exclusions and OR, and pages at most 100', async () => {
    const red = await story(project.id, { text: 'Badger report weekly', color: 'red' });
    const blue = await story(project.id, { text: 'Badger report monthly', color: 'blue' });
    const other = await story(project.id, { text: 'Weekly badgering' });
    const ids = async (query: string) =>
      ((await search(query)).json.items as Hit[]).map((h) => h.id).sort((a, b) => a - b);
    expect(await ids('q=badger&where=color:red')).toEqual([red.id]);
    expect(await ids(`q=${encodeURIComponent('"badger report"')}`)).toEqual([red.id, blue.id]);
    expect(await ids(`q=${encodeURIComponent('badg* -monthly')}`)).toEqual([red.id, other.id]);
    expect(await ids(`q=${encodeURIComponent('monthly OR hedgehog')}`)).toEqual([blue.id]);
    expect(await ids(`q=${encodeURIComponent('"badger report" weekly OR monthly')}`)).toEqual([
      red.id,
      blue.id,
    ]);
    // Stemmed: badgering is badger's.
    expect(await ids('q=badgering')).toEqual([red.id, blue.id, other.id]);
    const paged = await search('q=badger&pageSize=2&page=2');
    expect(paged.json).toMatchObject({ page: 2, pageSize: 2, totalItems: 3, totalPages: 2 });
    expect(paged.json.items).toHaveLength(1);
    expect((await search('q=badger&pageSize=5000')).json.pageSize).toBe(100);
  });

  it.each([
    ['', "'q' is required"],
    ['q=', "'q' is required"],
    ['q=a&q=b', "'q' is required, once"],
    [`q=${encodeURIComponent('"open')}`, 'never closed'],
    ['q=-alone', 'only excludes'],
    ['q=x*', '2 characters'],
    ['q=the', 'too common'],
    [`q=${'w'.repeat(257)}`, 'longer than 256'],
    ['q=x&where=colour:red', ''],
  ])('answers 400 for %j, saying why', async (query, why) => {
    const res = await search(query);
    expect(res.status).toBe(400);
    expect(res.json.type).toMatch(/^urn:flowboard:problem:invalid-(parameter|filter)$/);
    expect(res.json.detail).toContain(why);
  });

  it('lets only those who may read the project search it', async () => {
    await story(project.id, { text: 'Ocelot sighting' });
    const callers = await accessLadder(owner, project.id);
    const matrix = await accessMatrix(callers, async (key) => [
      (await api(`${P()}/search?q=ocelot`, { key })).status,
    ]);
    expect(matrix).toEqual({
      anonymous: [401],
      stranger: [404],
      none: [403],
      read: [200],
      readwrite: [200],
      admin: [200],
    });
  });

  describe('/me/search', () => {
    it('searches every project the caller can read, and no other', async () => {
      const a = await story(project.id, { text: 'Axolotl tank' });
      const b = await story(second.id, { text: 'Axolotl food' });
      const stranger = await signUp('search-stranger');
      const foreign = await createProject(stranger.key, 'Not yours');
      await api(`/api/v1/projects/${foreign.id}/stories`, {
        key: stranger.key,
        method: 'POST',
        body: { text: 'Axolotl elsewhere' },
      });

      const res = await api('/api/v1/me/search?q=axolotl', { key: owner.key });
      expect(res.status).toBe(200);
      const hits = res.json.items as Hit[];
      expect(hits.map((h) => [h.project.id, h.id]).sort()).toEqual(
        [
          [project.id, a.id],
          [second.id, b.id],
        ].sort(),
      );
      expect(hits.find((h) => h.project.id === second.id)!.project.name).toBe(second.name);
      expect((await api('/api/v1/me/search?q=axolotl', { key: stranger.key })).json.totalItems).toBe(1);
    });

    it('searches only the projects of a key limited to some', async () => {
      await story(project.id, { text: 'Pangolin one' });
      await story(second.id, { text: 'Pangolin two' });
      const limited = await api('/api/v1/me/apikeys', {
        method: 'POST',
        key: owner.key,
        body: { name: 'search bot', access: 'read', projects: [second.id], groups: ['stories'] },
      });
      expect(limited.status).toBe(200);
      const res = await api('/api/v1/me/search?q=pangolin', { key: limited.json.key });
      expect(res.status).toBe(200);
      expect((res.json.items as Hit[]).map((h) => h.project.id)).toEqual([second.id]);
      // The other project's search is refused to it outright.
      expect((await search('q=pangolin', limited.json.key)).status).toBe(403);
      // A key without the stories group may not search at all.
      const commentsOnly = await api('/api/v1/me/apikeys', {
        method: 'POST',
        key: owner.key,
        body: { access: 'read', groups: ['comments'] },
      });
      const refused = await api('/api/v1/me/search?q=pangolin', { key: commentsOnly.json.key });
      expect(refused.status).toBe(403);
      expect(refused.json.type).toBe('urn:flowboard:problem:insufficient-scope');
    });

    it('answers in XML', async () => {
      await story(second.id, { text: 'Capybara pool' });
      const res = await api('/api/v1/me/search?q=capybara', { key: owner.key, headers: XML_HEADERS });
      expect(res.status).toBe(200);
      expect(res.text).toContain('<snippet>Capybara pool</snippet>');
      expect(res.text).toContain('<totalItems>1</totalItems>');
    });
  });
});
