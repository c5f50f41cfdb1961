import { api, createProject, signUp, XML_HEADERS, type SignedUp } from './support';

/**
 * Sync (README "Sync: cursors and updatedSince"), over the real stack: cursor paging of story lists and of lists the
 * gateway has whole, updatedSince with tombstones and its token, their 400s and 410, in JSON and XML; and the two
 * concurrency cases: a cursor walk while another client moves and deletes cards (no skips, no repeats), and an
 * updatedSince mirror kept while writes race it (it ends equal to the board).
 */
jest.setTimeout(120_000);

interface Story {
  id: number;
  text: string;
  color: string;
  phase: { id: number };
}
interface Page {
  page: number;
  totalItems: number;
  items: Story[];
  nextCursor?: string;
  deleted?: Array<{ id: number; deletedTime: string }>;
  syncToken?: string;
}

describe('sync', () => {
  let owner: SignedUp;
  let project: { id: number };
  let phases: number[];
  const P = () => `/api/v1/projects/${project.id}`;
  const create = async (text: string) => {
    const res = await api(`${P()}/stories`, { key: owner.key, method: 'POST', body: { text } });
    expect(res.status).toBe(200);
    return res.json as Story;
  };
  const get = async (query: string): Promise<Page> => {
    const res = await api(`${P()}/stories?${query}`, { key: owner.key });
    expect([res.status, res.text.slice(0, 200)]).toEqual([200, expect.any(String)]);
    return res.json as Page;
  };
  /** Every page of a walk: the ids seen in order, the deleted ids, the last page's token. */
  async function walk(first: string, pageSize: number, between?: () => Promise<void>) {
    const seen: number[] = [];
    const deleted: number[] = [];
    let page = await get(`${first}&pageSize=${pageSize}`);
    for (;;) {
      seen.push(...page.items.map((s) => s.id));
      deleted.push(...(page.deleted ?? []).map((d) => d.id));
      if (!page.nextCursor) return { seen, deleted, token: page.syncToken };
      await between?.();
      page = await get(`cursor=${encodeURIComponent(page.nextCursor)}&pageSize=${pageSize}`);
    }
  }

  beforeAll(async () => {
    owner = await signUp('sync');
    project = await createProject(owner.key, 'Sync');
    const res = await api(`${P()}/phases`, { key: owner.key });
    phases = (res.json.items as Array<{ id: number }>).map((p) => p.id);
  });

  it('pages stories by cursor in id order, with where, totals and the page number of the walk', async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await create(`cursor ${i}`));
    const first = await get('cursor=&pageSize=2');
    expect(first).toMatchObject({ page: 1, items: made.slice(0, 2).map((s) => ({ id: s.id })) });
    const second = await get(`cursor=${encodeURIComponent(first.nextCursor!)}&pageSize=2`);
    expect(second.page).toBe(2);
    expect(second.items.map((s) => s.id)).toEqual([made[2]!.id, made[3]!.id]);
    const red = await api(`${P()}/stories/${made[4]!.id}`, {
      key: owner.key,
      method: 'PUT',
      body: { color: 'red' },
    });
    expect(red.status).toBe(200);
    const filtered = await get('cursor=&where=color:red');
    expect([filtered.items.map((s) => s.id), filtered.nextCursor]).toEqual([[made[4]!.id], undefined]);
  });

  it('refuses bad cursors and tokens with a 400 that says why, and cursor with page', async () => {
    const cases: Array<[string, RegExp]> = [
      ['cursor=abc', /cursor.*not a cursor/],
      ['cursor=&page=2', /not both/],
      ['updatedSince=', /updatedSince.*empty/],
      ['updatedSince=xyz', /not a syncToken/],
      ['updatedSince=start&where=color:red', /where.*cannot narrow/],
      ['updatedSince=start&page=1', /pages by cursor/],
    ];
    for (const [query, why] of cases) {
      const res = await api(`${P()}/stories?${query}${query.includes('page=') ? '' : ''}`, {
        key: owner.key,
      });
      expect([query, res.status, res.json.type]).toEqual([
        query,
        400,
        expect.stringMatching(/invalid-parameter/),
      ]);
      expect(res.json.detail).toMatch(why);
    }
    // Another list's cursor (phases are paged by the gateway itself).
    const phasePage = await api(`${P()}/phases?cursor=&pageSize=1`, { key: owner.key });
    expect(phasePage.status).toBe(200);
    const foreign = await api(`${P()}/stories?cursor=${encodeURIComponent(phasePage.json.nextCursor)}`, {
      key: owner.key,
    });
    expect([foreign.status, foreign.json.detail]).toEqual([400, expect.stringMatching(/another list/)]);
    // Search is ranked: no cursor.
    const search = await api(`${P()}/search?q=cursor&cursor=`, { key: owner.key });
    expect(search.status).toBe(400);
  });

  it('pages a list the gateway has whole (phases) by cursor, in JSON and XML', async () => {
    const phasesById: number[] = [];
    let cursor = '';
    for (;;) {
      const res = await api(`${P()}/phases?cursor=${encodeURIComponent(cursor)}&pageSize=2`, {
        key: owner.key,
      });
      phasesById.push(...(res.json.items as Array<{ id: number }>).map((p) => p.id));
      if (!res.json.nextCursor) break;
      cursor = res.json.nextCursor;
    }
    expect(phasesById).toEqual([...phases].sort((a, b) => a - b));
    const xml = await api(`${P()}/phases.xml?cursor=&pageSize=2`, { key: owner.key, headers: XML_HEADERS });
    expect(xml.status).toBe(200);
    expect(xml.text).toMatch(/<nextCursor>[A-Za-z0-9_.-]+<\/nextCursor>/);
  });

  it('answers updatedSince in XML: deleted stories and the syncToken', async () => {
    const full = await walk('updatedSince=start', 1000);
    const gone = await create('to delete');
    expect((await api(`${P()}/stories/${gone.id}`, { key: owner.key, method: 'DELETE' })).status).toBe(200);
    const xml = await api(`${P()}/stories.xml?updatedSince=${encodeURIComponent(full.token!)}`, {
      key: owner.key,
      headers: XML_HEADERS,
    });
    expect(xml.status).toBe(200);
    expect(xml.text).toMatch(
      new RegExp(
        `<deleted><deletedStory><deletedTime>[0-9T:-]+</deletedTime><id>${gone.id}</id></deletedStory>`,
      ),
    );
    expect(xml.text).toMatch(/<syncToken>[A-Za-z0-9_.-]+<\/syncToken>/);
  });

  it('walks a board by cursor while another client moves and deletes cards: no skips, no repeats', async () => {
    const board = [];
    for (let i = 0; i < 40; i++) board.push(await create(`walk ${i}`));
    const ids = board.map((s) => s.id);
    const doomed = new Set(ids.filter((_, i) => i % 7 === 3));
    let stop = false;
    // The other client: moves cards between phases (board order churns) and deletes some, as fast as it can.
    const churn = (async () => {
      let n = 0;
      const order = [...doomed];
      while (!stop) {
        const id = ids[(n * 13) % ids.length]!;
        if (!doomed.has(id))
          await api(`${P()}/stories/${id}`, {
            key: owner.key,
            method: 'PUT',
            body: { phase: phases[n % 3] },
          });
        const victim = order.shift();
        if (victim) await api(`${P()}/stories/${victim}`, { key: owner.key, method: 'DELETE' });
        n++;
      }
    })();
    const { seen } = await walk('cursor=', 3, () => new Promise((r) => setTimeout(r, 20)));
    stop = true;
    await churn;
    expect(new Set(seen).size).toBe(seen.length); // no repeats
    const kept = ids.filter((id) => !doomed.has(id));
    expect(kept.filter((id) => !seen.includes(id))).toEqual([]); // no skips
  });

  it('keeps an updatedSince mirror exact while creates, updates and deletes race the syncs', async () => {
    const mirror = new Map<number, Story>();
    const apply = (page: { items: Story[]; deleted?: Array<{ id: number }> }) => {
      for (const s of page.items) mirror.set(s.id, s);
      for (const d of page.deleted ?? []) mirror.delete(d.id);
    };
    let token = 'start';
    const syncOnce = async () => {
      let page = await get(`updatedSince=${encodeURIComponent(token)}&pageSize=7`);
      for (;;) {
        apply(page);
        if (!page.nextCursor) break;
        page = await get(`cursor=${encodeURIComponent(page.nextCursor)}&pageSize=7`);
      }
      token = page.syncToken!;
    };
    let stop = false;
    const writer = (async () => {
      const live: number[] = [];
      for (let n = 0; !stop; n++) {
        if (n % 3 === 0 || live.length < 3) live.push((await create(`race ${n}`)).id);
        else if (n % 3 === 1) {
          const id = live[n % live.length]!;
          await api(`${P()}/stories/${id}`, {
            key: owner.key,
            method: 'PUT',
            body: { text: `race ${n} edited` },
          });
        } else {
          const id = live.splice(n % live.length, 1)[0]!;
          await api(`${P()}/stories/${id}`, { key: owner.key, method: 'DELETE' });
        }
      }
    })();
    for (let i = 0; i < 8; i++) await syncOnce();
    stop = true;
    await writer;
    await syncOnce();
    // The board, read whole by page/pageSize, equals the mirror.
    const board = new Map<number, Story>();
    for (let p = 1; ; p++) {
      const page = await get(`page=${p}&pageSize=1000`);
      for (const s of page.items) board.set(s.id, s);
      if (page.items.length < 1000) break;
    }
    expect([...mirror.keys()].sort((a, b) => a - b)).toEqual([...board.keys()].sort((a, b) => a - b));
    for (const [id, s] of board)
      expect([id, mirror.get(id)?.text, mirror.get(id)?.color]).toEqual([id, s.text, s.color]);
  });
});
