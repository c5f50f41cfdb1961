import { apiClient } from '@flowboard/testing';
import type { membership } from '@flowboard/proto';
import { startHarness, type Harness } from './support/boot';

/**
 * Cursor paging of the lists their services page by keyset (README "Sync: cursors and updatedSince"), against the
 * fakes: what the gateway adds (the keyset asked, nextCursor, the answer's shape in JSON and XML, the 503 for a
 * service that ignored the keyset, the 400s, the response cache). Tags, /me/stories and projects are walked end to
 * end against the real services (test/e2e/test/sync.e2e.test.ts), as are the services' own keysets.
 */
let h: Harness;
let api: ReturnType<typeof apiClient>;
let owner: { user: membership.User__Output; key: string };
let P: string;
let S: string;
let backlog: number;

beforeAll(async () => {
  h = await startHarness();
  api = apiClient(h.baseUrl);
  owner = h.membership.addUser('Maeby Fünke');
  const project = h.membership.addProject(owner.user, 'Cursors');
  backlog = h.boards.board(project.project.id)[0]!.id;
  P = `/api/v1/projects/${project.project.id}`;
  for (const text of ['one', 'two', 'three', 'four', 'five']) {
    const res = await api(`${P}/stories`, { key: owner.key, method: 'POST', body: { text } });
    expect(res.status).toBe(200);
  }
  S = `${P}/stories/1`;
});
afterAll(() => h.stop());

interface Page {
  page: number;
  pageSize: number;
  totalItems: number;
  items: Array<{ id: number }>;
  nextCursor?: string;
}

/** Every page of a walk of `path` (JSON), `between` run after each page: the ids in the order answered. */
async function walk(path: string, pageSize: number, between: () => Promise<void> = async () => {}) {
  const ids: number[] = [];
  const pages: Page[] = [];
  let cursor = '';
  for (;;) {
    const res = await api(`${path}?pageSize=${pageSize}&cursor=${encodeURIComponent(cursor)}`, {
      key: owner.key,
    });
    expect([res.status, res.text.slice(0, 300)]).toEqual([200, expect.any(String)]);
    const page = res.json as Page;
    pages.push(page);
    ids.push(...page.items.map((item) => item.id));
    if (!page.nextCursor) return { ids, pages };
    cursor = page.nextCursor;
    await between();
  }
}

async function make(path: string, text: string): Promise<number> {
  const res = await api(path, { key: owner.key, method: 'POST', body: { text } });
  expect(res.status).toBe(200);
  return res.json.id as number;
}

describe('lists paged by keyset in their service', () => {
  it("walks a story's tasks in id order though reordered, asking after each page's last id", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await make(`${S}/tasks`, `task ${i}`));
    const reordered = await api(`${S}/tasks`, { key: owner.key, method: 'PUT', body: [...ids].reverse() });
    expect(reordered.json.items.map((t: { id: number }) => t.id)).toEqual([...ids].reverse());

    const { ids: walked, pages } = await walk(`${S}/tasks`, 2);
    expect(walked).toEqual(ids);
    expect(pages.map((p) => [p.page, p.pageSize, p.totalItems, p.items.length, !!p.nextCursor])).toEqual([
      [1, 2, 5, 2, true],
      [2, 2, 5, 2, true],
      [3, 2, 5, 1, false],
    ]);
    expect(Object.keys(pages[0]!)).toEqual([
      'page',
      'pageSize',
      'totalPages',
      'totalItems',
      'items',
      'nextCursor',
    ]);
    // By page: board (position) order, no nextCursor, no keyset asked.
    const byPage = await api(`${S}/tasks?pageSize=2`, { key: owner.key });
    expect(byPage.json.items.map((t: { id: number }) => t.id)).toEqual([ids[4], ids[3]]);
    expect(byPage.json).not.toHaveProperty('nextCursor');
  });

  it('answers a walk in XML, <nextCursor> after <items>, and the cursor continues the same list', async () => {
    const first = await api(`${S}/tasks.xml?cursor=&pageSize=3`, { key: owner.key });
    expect(first.status).toBe(200);
    expect(first.text).toMatch(
      /^<\?xml[^>]*\?><tasks><items>(<task>.*?<\/task>){3}<\/items><nextCursor>[A-Za-z0-9_.-]+<\/nextCursor><page>1<\/page>/,
    );
    const cursor = /<nextCursor>([^<]+)<\/nextCursor>/.exec(first.text)![1]!;
    const second = await api(`${S}/tasks?cursor=${cursor}&pageSize=3`, { key: owner.key });
    expect(second.json).toMatchObject({ page: 2, totalItems: 5 });
    expect(second.json.items).toHaveLength(2);
    // Another list's cursor (the story's comments) is a 400 naming it.
    const foreign = await api(`${S}/comments?cursor=${cursor}`, { key: owner.key });
    expect([foreign.status, foreign.json.detail]).toEqual([400, expect.stringMatching(/another list/)]);
  });

  it("walks a story's comments while others are added and deleted: no skips, no repeats", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 9; i++) ids.push(await make(`${S}/comments`, `comment ${i}`));
    const doomed = [ids[1]!, ids[4]!, ids[8]!];
    const added: number[] = [];
    const { ids: walked } = await walk(`${S}/comments`, 2, async () => {
      const victim = doomed.shift();
      if (victim)
        expect((await api(`${S}/comments/${victim}`, { key: owner.key, method: 'DELETE' })).status).toBe(200);
      added.push(await make(`${S}/comments`, 'meanwhile'));
    });
    expect(new Set(walked).size).toBe(walked.length);
    const stayed = ids.filter((id) => ![ids[1], ids[4], ids[8]].includes(id));
    expect(stayed.filter((id) => !walked.includes(id))).toEqual([]);
    expect(walked).toEqual([...walked].sort((a, b) => a - b));
    // Comments created during the walk, after its position, are walked too.
    expect(added.filter((id) => !walked.includes(id))).toEqual([]);
  });

  it("answers a phase's stories by cursor as the phase with its slice, totalItems and nextCursor", async () => {
    const first = await api(`${P}/phases/${backlog}/stories?cursor=&pageSize=2`, { key: owner.key });
    expect(first.status).toBe(200);
    expect(Object.keys(first.json)).toEqual([
      'id',
      'name',
      'description',
      'index',
      'stories',
      'totalItems',
      'nextCursor',
    ]);
    expect(first.json).toMatchObject({ id: backlog, name: 'Backlog', totalItems: 5 });
    const ids: number[] = first.json.stories.map((s: { id: number }) => s.id);
    let cursor: string | undefined = first.json.nextCursor;
    while (cursor) {
      const res = await api(
        `${P}/phases/${backlog}/stories?cursor=${encodeURIComponent(cursor)}&pageSize=2`,
        {
          key: owner.key,
        },
      );
      ids.push(...res.json.stories.map((s: { id: number }) => s.id));
      cursor = res.json.nextCursor;
    }
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    // XML: the phase element, its stories and the walk's members beside them.
    const xml = await api(`${P}/phases/${backlog}/stories.xml?cursor=&pageSize=4`, { key: owner.key });
    expect(xml.text).toMatch(/^<\?xml[^>]*\?><phase>.*<nextCursor>[A-Za-z0-9_.-]+<\/nextCursor>/);
    expect(xml.text).toMatch(
      /<stories>(<story>.*?<\/story>){4}<\/stories><totalItems>5<\/totalItems><\/phase>$/,
    );
    // By page, as before: the slice, no totals, no cursor.
    const byPage = await api(`${P}/phases/${backlog}/stories?page=2&pageSize=2`, { key: owner.key });
    expect(Object.keys(byPage.json)).toEqual(['id', 'name', 'description', 'index', 'stories']);
    expect(byPage.json.stories.map((s: { id: number }) => s.id)).toEqual([3, 4]);
  });

  it('refuses (503) a walk a service answers without keyset (an older release), and pages by number still', async () => {
    for (const [method, path] of [
      ['ListTasks', `${S}/tasks`],
      ['ListComments', `${S}/comments`],
      ['ListPhaseStories', `${P}/phases/${backlog}/stories`],
    ] as const) {
      h.boards.keysetless.add(method);
      try {
        // A size not asked before: an answer the response cache holds would be no less right, but no test.
        const res = await api(`${path}?cursor=&pageSize=7`, { key: owner.key });
        expect([path, res.status, res.json.type]).toEqual([path, 503, 'urn:flowboard:problem:unavailable']);
        expect(res.json.detail).toMatch(/boards service running does not page this list by cursor yet/);
        expect((await api(`${path}?pageSize=7`, { key: owner.key })).status).toBe(200);
      } finally {
        h.boards.keysetless.delete(method);
      }
    }
  });

  it('a by-page answer in the response cache never answers a cursor request (nor the other way round)', async () => {
    const calls = () => h.boards.calls.count('ListTasks');
    const before = calls();
    const byPage = await api(`${S}/tasks?pageSize=4`, { key: owner.key });
    await api(`${S}/tasks?pageSize=4`, { key: owner.key });
    expect(calls() - before).toBe(1); // the second from the cache
    const byCursor = await api(`${S}/tasks?pageSize=4&cursor=`, { key: owner.key });
    expect(calls() - before).toBe(2);
    expect(byCursor.json.nextCursor).toEqual(expect.any(String));
    expect(byCursor.json.items).not.toEqual(byPage.json.items); // id order, not board order
    expect(byPage.json).not.toHaveProperty('nextCursor');
  });

  it('a write answering a page refuses cursor (400) before anything is written; search has no cursor', async () => {
    const tasks = await api(`${S}/tasks?pageSize=100`, { key: owner.key });
    const order = tasks.json.items.map((t: { id: number }) => t.id);
    const reorders = h.boards.calls.count('ReorderTasks');
    const res = await api(`${S}/tasks?cursor=`, {
      key: owner.key,
      method: 'PUT',
      body: [...order].reverse(),
    });
    expect([res.status, res.json.type]).toEqual([400, 'urn:flowboard:problem:invalid-parameter']);
    expect(res.json.detail).toMatch(/pages by 'page' and 'pageSize' only, not by 'cursor'/);
    expect(h.boards.calls.count('ReorderTasks')).toBe(reorders);
    const search = await api(`${P}/search?q=one&cursor=`, { key: owner.key });
    expect([search.status, search.json.detail]).toEqual([400, expect.stringMatching(/search is ranked/)]);
  });
});

describe("a webhook's deliveries by cursor", () => {
  it('walks them in id order (oldest first), the page size still clamped to 100', async () => {
    const created = await api(`${P}/webhooks`, {
      key: owner.key,
      method: 'POST',
      body: { url: 'https://hooks.example.com/cursor' },
    });
    const webhookId = created.json.id as number;
    const ids = Array.from({ length: 5 }, () => h.webhooks.addDelivery(webhookId).id);
    const D = `${P}/webhooks/${webhookId}/deliveries`;
    const byPage = await api(`${D}?pageSize=2`, { key: owner.key });
    expect(byPage.json.items.map((d: { id: number }) => d.id)).toEqual([ids[4], ids[3]]); // newest first

    const { ids: walked, pages } = await walk(D, 2);
    expect(walked).toEqual(ids);
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(h.webhooks.lastRequest.get('ListDeliveries')).toMatchObject({
      page_size: 2,
      keyset: { after_id: ids[3] },
    });

    const big = await api(`${D}?pageSize=5000&cursor=`, { key: owner.key });
    expect(big.json).toMatchObject({ page: 1, pageSize: 100, totalItems: 5 });
    expect(big.json).not.toHaveProperty('nextCursor');
    expect(h.webhooks.lastRequest.get('ListDeliveries')).toMatchObject({
      page_size: 100,
      keyset: { after_id: 0 },
    });

    h.webhooks.keysetless = true;
    try {
      const old = await api(`${D}?cursor=`, { key: owner.key });
      expect([old.status, old.json.detail]).toEqual([
        503,
        expect.stringMatching(/webhooks service running does not page this list by cursor yet/),
      ]);
    } finally {
      h.webhooks.keysetless = false;
    }
  });
});
