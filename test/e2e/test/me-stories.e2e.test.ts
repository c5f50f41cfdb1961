import { api, childNames, createProject, signUp, XML_HEADERS, type SignedUp } from './support';

/**
 * `GET /api/v1/me/stories` and `/api/v1/me?with=stories` (spec "Current user", docs/compat.md §4.1, §5.1):
 * the stories the caller owns, in every project where they have Read or better, ordered by project id, phase
 * index, board position. Projects the caller cannot read (not a member, removed, or `none` access) never show.
 */
jest.setTimeout(60_000);

describe('/me/stories', () => {
  let alice: SignedUp; // owns the shared projects
  let bob: SignedUp; // the caller
  let phasesA: Array<{ id: number }>;
  const projects: Record<'a' | 'b' | 'none' | 'removed' | 'foreign', { id: number; name: string }> =
    {} as never;

  const story = async (owner: SignedUp, projectId: number, body: Record<string, unknown>) => {
    const res = await api(`/api/v1/projects/${projectId}/stories`, { key: owner.key, method: 'POST', body });
    expect(res.status).toBe(200);
    return res.json as { id: number; text: string };
  };
  const addMember = async (projectId: number, user: SignedUp) =>
    expect(
      (
        await api(`/api/v1/projects/${projectId}/members`, {
          key: alice.key,
          method: 'POST',
          body: user.id,
        })
      ).status,
    ).toBe(200);
  const mine = (query = '') => api(`/api/v1/me/stories${query}`, { key: bob.key });

  beforeAll(async () => {
    alice = await signUp('me-alice');
    bob = await signUp('me-bob');
    // Creation order fixes the id order: a < b < none < removed < foreign.
    projects.a = await createProject(alice.key, 'A shared');
    projects.b = await createProject(bob.key, 'B own');
    projects.none = await createProject(alice.key, 'C none access');
    projects.removed = await createProject(alice.key, 'D removed');
    projects.foreign = await createProject(alice.key, 'E foreign');
    // bob: readwrite in A (Members role); only in a role with access none in C; removed from D.
    await addMember(projects.a.id, bob);
    await addMember(projects.removed.id, bob);
    const noneRole = await api(`/api/v1/projects/${projects.none.id}/roles`, {
      key: alice.key,
      method: 'POST',
      body: { name: 'Onlookers', access: 'none' },
    });
    await api(`/api/v1/projects/${projects.none.id}/roles/${noneRole.json.id}/members`, {
      key: alice.key,
      method: 'POST',
      body: bob.id,
    });
    phasesA = (await api(`/api/v1/projects/${projects.a.id}?with=phases`, { key: alice.key })).json.phases;

    // A: board order is Backlog (a3) then Working (a1, a2) then Archive (a4), whatever the creation order.
    await story(alice, projects.a.id, { text: 'a1', owner: bob.id, phase: phasesA[2]!.id, color: 'red' });
    await story(alice, projects.a.id, { text: 'a2', owner: bob.userName, phase: phasesA[2]!.id });
    await story(alice, projects.a.id, { text: 'a3', owner: bob.id });
    await story(alice, projects.a.id, { text: 'a4', owner: bob.id, phase: phasesA[4]!.id, color: 'red' });
    await story(alice, projects.a.id, { text: 'alice owns this', owner: alice.id });
    await story(alice, projects.a.id, { text: 'nobody owns this' });
    await story(bob, projects.b.id, { text: 'b1', owner: bob.id, tasks: [{ text: 'task b1' }] });
    await story(alice, projects.none.id, { text: 'hidden: none access', owner: bob.id });
    await story(alice, projects.removed.id, { text: 'hidden: removed', owner: bob.id });
    await story(alice, projects.foreign.id, { text: 'hidden: foreign', owner: alice.id });
    expect(
      (
        await api(`/api/v1/projects/${projects.removed.id}/members/${bob.id}`, {
          key: alice.key,
          method: 'DELETE',
        })
      ).status,
    ).toBe(200);
  });

  it('lists the caller’s stories in project id, phase index, board position order', async () => {
    const res = await mine();
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['page', 'pageSize', 'totalPages', 'totalItems', 'items']);
    expect(res.json).toMatchObject({ page: 1, pageSize: 100, totalPages: 1, totalItems: 5 });
    const items: Array<{ text: string; project: { id: number; name: string }; owner: { id: number } }> =
      res.json.items;
    expect(items.map((s) => s.text)).toEqual(['a3', 'a1', 'a2', 'a4', 'b1']);
    expect(items[0]!.project).toEqual(projects.a);
    expect(items[4]!.project).toEqual(projects.b);
    for (const s of items) expect(s.owner).toMatchObject({ id: bob.id, userName: bob.userName });
    expect(Object.keys(items[0]!)).toEqual([
      'id',
      'text',
      'size',
      'color',
      'priority',
      'status',
      'project',
      'phase',
      'creator',
      'owner',
    ]);
  });

  it('never shows stories of projects the caller cannot read (none access, removed, not a member)', async () => {
    const texts = (await mine('?pageSize=1000')).json.items.map((s: { text: string }) => s.text);
    expect(texts.filter((t: string) => t.startsWith('hidden'))).toEqual([]);
    // …and the none-access member is indeed refused the project's stories directly.
    expect((await api(`/api/v1/projects/${projects.none.id}/stories`, { key: bob.key })).status).toBe(403);
    // Another user sees only their own.
    const other = await api('/api/v1/me/stories', { key: alice.key });
    expect(other.json.items.map((s: { text: string }) => s.text)).toEqual([
      'alice owns this',
      'hidden: foreign',
    ]);
  });

  it('pages with exact totals and a stable order', async () => {
    const pages = await Promise.all([1, 2, 3, 4].map((n) => mine(`?pageSize=2&page=${n}`)));
    expect(pages.map((p) => p.json.items.map((s: { text: string }) => s.text))).toEqual([
      ['a3', 'a1'],
      ['a2', 'a4'],
      ['b1'],
      [],
    ]);
    for (const p of pages) expect(p.json).toMatchObject({ pageSize: 2, totalItems: 5, totalPages: 3 });
    expect((await mine('?page=0')).status).toBe(400);
  });

  it('filters with where= and enriches with with= across projects', async () => {
    const red = await mine('?where=color:red');
    expect(red.json.items.map((s: { text: string }) => s.text)).toEqual(['a1', 'a4']);
    expect(red.json.totalItems).toBe(2);
    expect((await mine('?where=colour:red')).status).toBe(400);

    const enriched = await mine('?with=tasks,milestones');
    const b1 = enriched.json.items.find((s: { text: string }) => s.text === 'b1');
    expect(b1.tasks.map((t: { text: string }) => t.text)).toEqual(['task b1']);
    for (const s of enriched.json.items) expect(s.milestones).toHaveLength(1);
    expect((await mine('?with=nope')).status).toBe(400);
  });

  it('XML: a <stories> page of <story> items', async () => {
    const res = await api('/api/v1/me/stories?pageSize=2', { key: bob.key, headers: XML_HEADERS });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<stories><items><story>');
    expect(childNames(res.text, 'stories')).toEqual([
      'items',
      'page',
      'pageSize',
      'totalItems',
      'totalPages',
    ]);
    expect(res.text.match(/<story>/g)).toHaveLength(2);
  });

  it('/me?with=stories adds {id, text} of every owned story, in the same order; absent otherwise', async () => {
    const res = await api('/api/v1/me?with=stories', { key: bob.key });
    expect(res.status).toBe(200);
    const all = (await mine()).json.items.map((s: { id: number; text: string }) => ({
      id: s.id,
      text: s.text,
    }));
    expect(res.json.stories).toEqual(all);
    expect((await api('/api/v1/me', { key: bob.key })).json).not.toHaveProperty('stories');
    expect((await api('/api/v1/me?with=everything', { key: bob.key })).json.stories).toHaveLength(5);
    const xml = await api('/api/v1/me.xml?with=stories', { key: bob.key });
    expect(xml.text).toMatch(/<stories><story><id>\d+<\/id><text>a3<\/text><\/story>/);
    const fresh = await signUp('me-empty');
    const empty = await api('/api/v1/me?with=stories', { key: fresh.key });
    expect(empty.json.stories).toEqual([]);
    expect((await api('/api/v1/me.xml?with=stories', { key: fresh.key })).text).toContain('<stories />');
    expect((await api('/api/v1/me?with=tasks', { key: bob.key })).status).toBe(400);
  });
});
