import { WebhookReceiver } from '@flowboard/testing';
import { api, createProject, signUp, XML_HEADERS, type SignedUp } from './support';

/**
 * Sync (README "Sync: cursors and updatedSince"), over the real stack: cursor paging of story lists and of lists the
 * gateway has whole, updatedSince with tombstones and its token, their 400s and 410, in JSON and XML; and the two
 * concurrency cases: a cursor walk while another client moves and deletes cards (no skips, no repeats), and an
 * updatedSince mirror kept while writes race it (it ends equal to the board). Then every list its service pages by
 * keyset (a phase's stories, tags and a tag's stories, a story's tags, tasks and comments, /me/stories, a webhook's
 * deliveries, projects): each walked in JSON and in XML, every item exactly once; walks of a story's comments and of
 * a phase's stories while another client adds and deletes; the writes answering a page and search refuse `cursor`.
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

/** The ids of the items of an XML list: the `<id>` of each child of `<container>` (`items`, or a phase's `stories`). */
function xmlItemIds(xml: string, container: string): number[] {
  const match = new RegExp(`<${container}>([\\s\\S]*?)</${container}>`).exec(xml);
  if (!match) return []; // `<items />`: none
  const ids: number[] = [];
  let depth = 0;
  for (const [, closing, name, selfClosing, text] of (match[1] as string).matchAll(
    /<(\/?)([A-Za-z]\w*)[^>]*?(\/?)>([^<]*)/g,
  )) {
    if (closing) {
      depth--;
      continue;
    }
    if (depth === 1 && name === 'id' && !selfClosing) ids.push(Number(text));
    if (!selfClosing) depth++;
  }
  return ids;
}

type Format = 'json' | 'xml';

/**
 * Every page of a cursor walk of `path` in `format`: the item ids in the order answered. `slice`: a phase's stories
 * (the phase, its `stories` and `nextCursor`) rather than a page's `items`. `between` runs after each page.
 */
async function walkList(
  key: string,
  path: string,
  format: Format,
  { pageSize, slice = false, between }: { pageSize: number; slice?: boolean; between?: () => Promise<void> },
): Promise<number[]> {
  const ids: number[] = [];
  let cursor = '';
  for (let n = 1; n <= 500; n++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api(`${path}${sep}pageSize=${pageSize}&cursor=${encodeURIComponent(cursor)}`, {
      key,
      ...(format === 'xml' ? { headers: XML_HEADERS } : {}),
    });
    expect([path, format, n, res.status, res.text.slice(0, 300)]).toEqual([
      path,
      format,
      n,
      200,
      expect.any(String),
    ]);
    let next: string | undefined;
    if (format === 'json') {
      const items = (slice ? res.json.stories : res.json.items) as Array<{ id: number }>;
      if (!slice) expect(res.json.page).toBe(n);
      expect(items.length).toBeLessThanOrEqual(pageSize);
      ids.push(...items.map((item) => item.id));
      next = res.json.nextCursor;
    } else {
      expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
      const items = xmlItemIds(res.text, slice ? 'stories' : 'items');
      expect(items.length).toBeLessThanOrEqual(pageSize);
      ids.push(...items);
      if (!slice) expect(res.text).toContain(`<page>${n}</page>`);
      next = /<nextCursor>([^<]+)<\/nextCursor>/.exec(res.text)?.[1];
    }
    if (!next) return ids;
    cursor = next;
    await between?.();
  }
  throw new Error(`the walk of ${path} never ended`);
}

/** The ids of a whole list, read by page (`items`, or a phase's `stories`), sorted. */
async function wholeList(key: string, path: string, slice = false): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api(`${path}${sep}page=${page}&pageSize=1000`, { key });
    expect(res.status).toBe(200);
    const items = (slice ? res.json.stories : res.json.items) as Array<{ id: number }>;
    ids.push(...items.map((item) => item.id));
    if (items.length < 1000) return ids.sort((a, b) => a - b);
  }
}

const ascending = (ids: number[]) => [...ids].sort((a, b) => a - b);

describe('cursor paging of the lists their services page by keyset', () => {
  let owner: SignedUp;
  let project: { id: number };
  let phases: number[];
  let storyIds: number[];
  let receiver: WebhookReceiver | undefined;
  const P = () => `/api/v1/projects/${project.id}`;
  const S = () => `${P()}/stories/${storyIds[0]}`;
  const write = async (path: string, method: string, body?: unknown) => {
    const res = await api(path, { key: owner.key, method, ...(body === undefined ? {} : { body }) });
    expect([method, path, res.status, res.text.slice(0, 300)]).toEqual([
      method,
      path,
      200,
      expect.any(String),
    ]);
    return res.json as { id: number };
  };
  const formats: Format[] = ['json', 'xml'];

  beforeAll(async () => {
    owner = await signUp('cursor-lists');
    project = await createProject(owner.key, 'Cursor lists');
    phases = ((await api(`${P()}/phases`, { key: owner.key })).json.items as Array<{ id: number }>).map(
      (p) => p.id,
    );
    storyIds = [];
    for (let i = 0; i < 7; i++)
      storyIds.push(
        (await write(`${P()}/stories`, 'POST', { text: `listed ${i}`, owner: owner.userName })).id,
      );
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it.each(formats)(
    "walks a phase's stories (the phase with its slice) in %s, each once, in id order",
    async (format) => {
      // Board order is not id order: the last story moved to the top of Backlog.
      const moved = await api(`${P()}/phases/${phases[0]}/stories`, {
        key: owner.key,
        method: 'PUT',
        body: [storyIds[6], ...storyIds.slice(0, 6)],
      });
      expect(moved.status).toBe(200);
      const walked = await walkList(owner.key, `${P()}/phases/${phases[0]}/stories`, format, {
        pageSize: 3,
        slice: true,
      });
      expect(walked).toEqual(ascending(storyIds));
      const first = await api(`${P()}/phases/${phases[0]}/stories?cursor=&pageSize=3`, { key: owner.key });
      expect(first.json).toMatchObject({ id: phases[0], totalItems: 7, nextCursor: expect.any(String) });
      const filtered = await walkList(
        owner.key,
        `${P()}/phases/${phases[0]}/stories?where=${encodeURIComponent('text:"listed 3"')}`,
        format,
        {
          pageSize: 3,
          slice: true,
        },
      );
      expect(filtered).toEqual([storyIds[3]]);
    },
  );

  it.each(formats)("walks tags, a tag's stories and a story's tags in %s, each once", async (format) => {
    if (format === 'json') {
      for (let i = 0; i < 6; i++) await write(`${P()}/tags`, 'POST', { name: `walk tag ${i}` });
      await write(`${S()}/tags`, 'PUT', [
        'walk tag 0',
        'walk tag 2',
        'walk tag 3',
        'walk tag 5',
        'story only',
      ]);
      for (const id of storyIds.slice(1)) await write(`${P()}/tags/walk%20tag%201/stories`, 'POST', { id });
    }
    const tags = await walkList(owner.key, `${P()}/tags`, format, { pageSize: 2 });
    expect(tags).toEqual(await wholeList(owner.key, `${P()}/tags`));
    expect(tags).toHaveLength(7);
    const storyTags = await walkList(owner.key, `${S()}/tags`, format, { pageSize: 2 });
    expect(storyTags).toEqual(await wholeList(owner.key, `${S()}/tags`));
    expect(storyTags).toHaveLength(5);
    const tagged = await walkList(owner.key, `${P()}/tags/walk%20tag%201/stories`, format, { pageSize: 4 });
    expect(tagged).toEqual(ascending(storyIds.slice(1)));
    const byId = await api(`${P()}/tags?pageSize=1000`, { key: owner.key });
    const tagId = (byId.json.items as Array<{ id: number; name: string }>).find(
      (t) => t.name === 'walk tag 1',
    )!.id;
    expect(await walkList(owner.key, `${P()}/tags/${tagId}/stories`, format, { pageSize: 5 })).toEqual(
      tagged,
    );
  });

  it.each(formats)("walks a story's tasks and comments in %s, each once, in id order", async (format) => {
    const story = `${P()}/stories/${storyIds[1]}`;
    if (format === 'json') {
      const tasks = [];
      for (let i = 0; i < 5; i++)
        tasks.push((await write(`${story}/tasks`, 'POST', { text: `task ${i}` })).id);
      // Position order is not id order.
      await write(`${story}/tasks`, 'PUT', [...tasks].reverse());
      for (let i = 0; i < 5; i++) await write(`${story}/comments`, 'POST', { text: `comment ${i}` });
    }
    const tasks = await walkList(owner.key, `${story}/tasks`, format, { pageSize: 2 });
    expect(tasks).toEqual(await wholeList(owner.key, `${story}/tasks`));
    expect(tasks).toHaveLength(5);
    const comments = await walkList(owner.key, `${story}/comments`, format, { pageSize: 2 });
    expect(comments).toEqual(await wholeList(owner.key, `${story}/comments`));
    expect(comments).toHaveLength(5);
  });

  it.each(formats)(
    '/me/stories in %s: stories of two projects that share ids, each once, by (id, project)',
    async (format) => {
      const me = await signUp('cursor-me');
      const projects = [await createProject(me.key, 'Mine A'), await createProject(me.key, 'Mine B')];
      const mine: Array<{ id: number; project: number }> = [];
      for (const p of projects)
        for (let i = 0; i < 4; i++) {
          const res = await api(`/api/v1/projects/${p.id}/stories`, {
            key: me.key,
            method: 'POST',
            body: { text: `mine ${i}`, owner: me.userName },
          });
          expect(res.status).toBe(200);
          mine.push({ id: res.json.id, project: p.id });
        }
      // Story ids are numbered per project: each id here is in both.
      expect(new Set(mine.map((s) => s.id)).size).toBe(4);
      const expected = mine.sort((a, b) => a.id - b.id || a.project - b.project);
      for (const pageSize of [1, 3]) {
        const seen: string[] = [];
        let cursor = '';
        for (;;) {
          const res = await api(
            `/api/v1/me/stories?pageSize=${pageSize}&cursor=${encodeURIComponent(cursor)}`,
            {
              key: me.key,
              ...(format === 'xml' ? { headers: XML_HEADERS } : {}),
            },
          );
          expect(res.status).toBe(200);
          let next: string | undefined;
          if (format === 'json') {
            const items = res.json.items as Array<{ id: number; project: { id: number } }>;
            expect(items.length).toBeLessThanOrEqual(pageSize);
            seen.push(...items.map((s) => `${s.id}:${s.project.id}`));
            expect(res.json.totalItems).toBe(8);
            next = res.json.nextCursor;
          } else {
            // Each story's own <id>, and its project's (one <project> a story, in document order).
            const projectIds = [...res.text.matchAll(/<project><id>(\d+)<\/id>/g)].map((m) => m[1]);
            const items = xmlItemIds(res.text, 'items').map((id, i) => `${id}:${projectIds[i]}`);
            expect(items.length).toBeLessThanOrEqual(pageSize);
            seen.push(...items);
            next = /<nextCursor>([^<]+)<\/nextCursor>/.exec(res.text)?.[1];
          }
          if (!next) break;
          cursor = next;
        }
        expect([pageSize, seen]).toEqual([pageSize, expected.map((s) => `${s.id}:${s.project}`)]);
      }
    },
  );

  it.each(formats)(
    "walks projects and a webhook's deliveries in %s, each once, in id order",
    async (format) => {
      const me = await signUp('cursor-projects');
      const mine = [];
      for (let i = 0; i < 5; i++) mine.push((await createProject(me.key, `Walked ${i}`)).id);
      expect(await walkList(me.key, '/api/v1/projects', format, { pageSize: 2 })).toEqual(ascending(mine));

      receiver ??= await WebhookReceiver.start();
      const hook = await write(`${P()}/webhooks`, 'POST', { url: receiver.url(`/cursor/${format}`) });
      const W = `${P()}/webhooks/${hook.id}`;
      const pinged: number[] = [];
      for (let i = 0; i < 5; i++) pinged.push((await write(`${W}/ping`, 'POST')).id);
      const deliveries = await walkList(owner.key, `${W}/deliveries`, format, { pageSize: 2 });
      expect(deliveries).toEqual(await wholeList(owner.key, `${W}/deliveries`));
      expect(pinged.filter((id) => !deliveries.includes(id))).toEqual([]);
      // The page size is still clamped to 100 (and echoed).
      const big = await api(`${W}/deliveries?cursor=&pageSize=5000`, { key: owner.key });
      expect(big.json).toMatchObject({ page: 1, pageSize: 100, totalItems: deliveries.length });
    },
  );

  it("walks a story's comments while another client adds and deletes them: no skips, no repeats", async () => {
    const story = `${P()}/stories/${storyIds[2]}`;
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) ids.push((await write(`${story}/comments`, 'POST', { text: `c ${i}` })).id);
    const doomed = new Set(ids.filter((_, i) => i % 4 === 1));
    const { seen, added } = await churnWhile(
      () => walkList(owner.key, `${story}/comments`, 'json', { pageSize: 3, between: pause }),
      async (n, victim) => {
        if (victim) await write(`${story}/comments/${victim}`, 'DELETE');
        return (await write(`${story}/comments`, 'POST', { text: `added ${n}` })).id;
      },
      [...doomed],
    );
    expectNoSkipsNoRepeats(seen, ids, doomed);
    // What was added during the walk has ids above every walked one: each is seen at most once, in order.
    expect(seen).toEqual(ascending(seen));
    expect(added.length).toBeGreaterThan(0);
  });

  it("walks a phase's stories while another client adds, moves and deletes: no skips, no repeats", async () => {
    const phase = phases[1]!;
    const ids: number[] = [];
    for (let i = 0; i < 30; i++)
      ids.push((await write(`${P()}/stories`, 'POST', { text: `in phase ${i}`, phase })).id);
    const doomed = new Set(ids.filter((_, i) => i % 4 === 2));
    const stay = ids.filter((id) => !doomed.has(id));
    const { seen } = await churnWhile(
      () =>
        walkList(owner.key, `${P()}/phases/${phase}/stories`, 'json', {
          pageSize: 3,
          slice: true,
          between: pause,
        }),
      async (n, victim) => {
        if (victim) await write(`${P()}/stories/${victim}`, 'DELETE');
        // A story that stays goes to the bottom of its phase (board order churns; ids do not).
        await write(`${P()}/stories/${stay[(n * 7) % stay.length]}`, 'PUT', { phase });
        return (await write(`${P()}/stories`, 'POST', { text: `added ${n}`, phase })).id;
      },
      [...doomed],
    );
    expectNoSkipsNoRepeats(seen, ids, doomed);
    expect(seen).toEqual(ascending(seen));
  });

  it('refuses cursor (400, saying why) on the writes that answer a page, before writing, and on search', async () => {
    const story = `${P()}/stories/${storyIds[1]}`;
    await write(`${P()}/tags`, 'POST', { name: 'refusal tag' });
    const before = await wholeList(owner.key, `${story}/tasks`);
    const order = ((await api(`${story}/tasks`, { key: owner.key })).json.items as Array<{ id: number }>).map(
      (t) => t.id,
    );
    const phaseOrder = (
      (await api(`${P()}/phases`, { key: owner.key })).json.items as Array<{ id: number }>
    ).map((p) => p.id);
    const refused = [
      await api(`${story}/tasks?cursor=`, { key: owner.key, method: 'PUT', body: [...order].reverse() }),
      await api(`${P()}/phases?cursor=`, {
        key: owner.key,
        method: 'PUT',
        // A valid reorder (Backlog stays first, Archive last): only the cursor is refused.
        body: [phaseOrder[0], ...phaseOrder.slice(1, -1).reverse(), phaseOrder.at(-1)],
      }),
      await api(`${P()}/tags/refusal%20tag/stories?cursor=`, {
        key: owner.key,
        method: 'POST',
        body: { id: storyIds[0] },
      }),
      await api(`${story}/tags?cursor=`, { key: owner.key, method: 'POST', body: { name: 'never made' } }),
      await api(`${P()}/stories?where=${encodeURIComponent('text:"listed 0"')}&cursor=`, {
        key: owner.key,
        method: 'PUT',
        body: { color: 'purple' },
      }),
    ];
    for (const res of refused) {
      expect([res.status, res.json.type]).toEqual([400, 'urn:flowboard:problem:invalid-parameter']);
      expect(res.json.detail).toMatch(/by 'page' and 'pageSize' only, not by 'cursor'/);
    }
    // Nothing was written.
    const after = (await api(`${story}/tasks`, { key: owner.key })).json.items as Array<{ id: number }>;
    expect(after.map((t) => t.id)).toEqual(order);
    expect(await wholeList(owner.key, `${story}/tasks`)).toEqual(before);
    expect(await wholeList(owner.key, `${P()}/tags/refusal%20tag/stories`)).toEqual([]);
    const tagNames = (await api(`${P()}/tags?pageSize=1000`, { key: owner.key })).json.items as Array<{
      name: string;
    }>;
    expect(tagNames.map((t) => t.name)).not.toContain('never made');
    expect((await api(`${P()}/stories/${storyIds[0]}`, { key: owner.key })).json.color).not.toBe('purple');
    const phasesAfter = (await api(`${P()}/phases`, { key: owner.key })).json.items as Array<{ id: number }>;
    expect(phasesAfter.map((p) => p.id)).toEqual(phaseOrder);
    for (const path of [`${P()}/search?q=listed&cursor=`, '/api/v1/me/search?q=listed&cursor=']) {
      const search = await api(path, { key: owner.key });
      expect([path, search.status, search.json.detail]).toEqual([
        path,
        400,
        expect.stringMatching(/search is ranked.*not by 'cursor'/),
      ]);
    }
  });
});

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 20));

/**
 * Runs `walk` while another client churns as fast as it can: each round deletes the next of `victims` (if any)
 * and adds an item (`round` answers its id). The walk's ids and the ids added.
 */
async function churnWhile(
  walk: () => Promise<number[]>,
  round: (n: number, victim: number | undefined) => Promise<number>,
  victims: number[],
): Promise<{ seen: number[]; added: number[] }> {
  let stop = false;
  const added: number[] = [];
  const churn = (async () => {
    for (let n = 0; !stop; n++) added.push(await round(n, victims.shift()));
  })();
  try {
    return { seen: await walk(), added };
  } finally {
    stop = true;
    await churn;
  }
}

/** Every id of `ids` not `doomed` was walked, and none twice. */
function expectNoSkipsNoRepeats(seen: number[], ids: number[], doomed: Set<number>): void {
  expect(new Set(seen).size).toBe(seen.length); // no repeats
  expect(ids.filter((id) => !doomed.has(id) && !seen.includes(id))).toEqual([]); // no skips
}
