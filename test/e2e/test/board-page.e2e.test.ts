import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { waitFor } from '@flowboard/testing';
import { OwnGateway } from './own-gateway';
import { api, createProject, GATEWAY_URL, signUp, type SignedUp } from './support';

/**
 * The live board page (`/board`, issue 27) in a real headless Chromium (Debian's `chromium`, as docs.e2e.test.ts):
 * the board read through the API and kept current from the change stream by the browser's own EventSource. A move
 * made through the API shows in two open pages within a second; pages whose gateway restarts (SIGTERM) or crashes
 * (SIGKILL) catch up by themselves from the position they had (EventSource's reconnect with Last-Event-ID, or the
 * script's own from the last event's id when the browser gives up on a 503), without reading the board again.
 */
const CHROMIUM =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);

jest.setTimeout(180_000);

let browser: Browser;
let owner: SignedUp;
let project: { id: number; name: string };
let phases: number[];
const P = () => `/api/v1/projects/${project.id}`;

const call = async (path: string, init: Parameters<typeof api>[1] = {}) => {
  const res = await api(path, { key: owner.key, ...init });
  if (res.status !== 200) throw new Error(`${init.method ?? 'GET'} ${path} → ${res.status} ${res.text}`);
  return res.json;
};
const createStory = async (text: string): Promise<number> =>
  (await call(`${P()}/stories`, { method: 'POST', body: { text } })).id;
const moveStory = (story: number, phase: number) =>
  call(`${P()}/stories/${story}`, { method: 'PUT', body: { phase } });

/** A page on the board of `base`'s gateway, live; the key in the fragment, which never reaches the server. */
async function openBoard(base: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /content security policy/i.test(msg.text())) problems.push(msg.text());
  });
  const response = await page.goto(`${base}/board?project=${project.id}#apikey=${owner.key}`);
  expect(response?.status()).toBe(200);
  await status(page, 'live', 30_000);
  expect(page.url()).not.toContain(owner.key); // taken out of the address bar
  expect(await page.locator('#connect').isHidden()).toBe(true); // no key asked for
  expect(problems).toEqual([]);
  return page;
}

const status = (page: Page, state: string, timeout: number) =>
  page.locator(`#status[data-state="${state}"]`).waitFor({ state: 'attached', timeout });

const card = (page: Page, phase: number, story: number) =>
  page.locator(`[data-phase-id="${phase}"] [data-story-id="${story}"]`);

/** Where a page shows each story, in one look (cards move meanwhile): `story id → phase id`; absent, not shown. */
const columnsOf = (page: Page) =>
  page.evaluate<Record<string, number>>(`Object.fromEntries(
    [...document.querySelectorAll('[data-story-id]')].map((card) => [
      card.dataset.storyId,
      Number(card.closest('[data-phase-id]').dataset.phaseId),
    ]),
  )`);

/** The board the pages should show: `story id → phase id`, undefined for a deleted story. */
type Board = Record<number, number | undefined>;

/** Waits until every page shows `board`; when each did (performance.now()). */
const showsBoard = (pages: Page[], board: Board, timeoutMs: number) =>
  Promise.all(
    pages.map(async (page) => {
      await waitFor(
        async () => {
          const shown = await columnsOf(page);
          return Object.entries(board).every(([story, phase]) => shown[story] === phase) ? true : undefined;
        },
        timeoutMs,
        `the page to show ${JSON.stringify(board)}`,
      );
      return performance.now();
    }),
  );

beforeAll(async () => {
  if (!CHROMIUM) throw new Error('no Chromium: apt-get install chromium, or set CHROMIUM_PATH');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  owner = await signUp('board');
  project = await createProject(owner.key, 'Live Board');
  phases = ((await call(`${P()}/phases`)).items as Array<{ id: number; index: number }>)
    .sort((a, b) => a.index - b.index)
    .map((p) => p.id);
});
afterAll(async () => {
  await browser?.close();
});

describe('the live board page (/board)', () => {
  it('shows a card moved through the API in its new column, in two open pages, within a second', async () => {
    const story = await createStory('Pour the foundation');
    const pages = [await openBoard(GATEWAY_URL), await openBoard(GATEWAY_URL)];
    for (const page of pages) await card(page, phases[0]!, story).waitFor({ timeout: 10_000 });
    expect(await pages[0]!.title()).toBe('Live Board · Flowboard');

    await moveStory(story, phases[1]!);
    const answered = performance.now();
    const latencies = await Promise.all(
      pages.map(async (page) => {
        await card(page, phases[1]!, story).waitFor({ timeout: 1_000 });
        return Math.round(performance.now() - answered);
      }),
    );
    console.log(`board page: the move showed after ${latencies.join(' and ')} ms`);
    for (const latency of latencies) expect(latency).toBeLessThan(1_000);
    for (const page of pages) expect(await card(page, phases[0]!, story).count()).toBe(0);
    for (const page of pages) await page.context().close();
  });

  it('catches up by itself after its gateway restarts or crashes, from where it was, without reading the board again', async () => {
    // A gateway of this test's own: the stack's is shared with every other test file, so it is never restarted.
    const gateway = await OwnGateway.start();
    try {
      const [a, b, c] = [
        await createStory('Frame the walls'),
        await createStory('Order the bricks'),
        await createStory('Wire the lights'),
      ];
      const board: Board = { [a]: phases[0], [b]: phases[0], [c]: phases[0] };
      await gateway.streamReady(P(), owner.key);
      const pages = [await openBoard(gateway.url), await openBoard(gateway.url)];
      const boardReads = pages.map((page) => {
        const reads = { count: 0 };
        page.on('request', (req) => {
          if (req.url().includes('/phases?')) reads.count++;
        });
        return reads;
      });
      // A change while live, so the pages resume from an event's position, not from where they started.
      await moveStory(a, phases[1]!);
      board[a] = phases[1];
      await showsBoard(pages, board, 5_000);

      // Changes while the pages' gateway is down, made through the stack's.
      const whileDown = {
        SIGTERM: async () => {
          await moveStory(a, phases[2]!);
          board[a] = phases[2];
          await call(`${P()}/stories/${b}`, { method: 'DELETE' });
          board[b] = undefined;
          await call(`${P()}/stories/${c}`, { method: 'PUT', body: { text: 'Wire the lights twice' } });
        },
        SIGKILL: async () => {
          await moveStory(c, phases[1]!);
          board[c] = phases[1];
          board[await createStory('Paint the door')] = phases[0];
        },
      };
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        await gateway.stop(signal); // SIGTERM: a restart (streams end with `event: closed`); SIGKILL: a crash
        for (const page of pages) await status(page, 'reconnecting', 10_000);
        await whileDown[signal]();
        await new Promise((resolve) => setTimeout(resolve, 4_000)); // a reconnect attempt or more fails meanwhile

        const restarted = performance.now();
        await gateway.restart();
        const listening = Math.round(gateway.readyAfterMs);
        const times = await showsBoard(pages, board, 30_000);
        console.log(
          `board page, gateway stopped with ${signal}: caught up ${times.map((t) => Math.round(t - restarted)).join(' and ')} ms ` +
            `after the gateway was started again (listening after ${listening} ms)`,
        );
        for (const page of pages) await status(page, 'live', 10_000);
      }
      for (const page of pages) {
        await expect(card(page, phases[1]!, c).innerText()).resolves.toContain('Wire the lights twice');
      }
      // Caught up from the stream (Last-Event-ID, or `after` when the script reopens it), never by a board read.
      expect(boardReads.map((reads) => reads.count)).toEqual([0, 0]);
      for (const page of pages) await page.context().close();
    } finally {
      await gateway.stop();
    }
  });

  it('shows a new column and a renamed one when the phases change (phase.* events)', async () => {
    const page = await openBoard(GATEWAY_URL);
    const columnNames = () =>
      page.evaluate<string[]>(
        `[...document.querySelectorAll('[data-phase-id] .column-name')].map((h) => h.textContent)`,
      );
    await waitFor(
      async () => ((await columnNames()).length === phases.length ? true : undefined),
      10_000,
      'columns',
    );

    await call(`${P()}/phases`, { method: 'POST', body: { name: 'Review', description: '', index: 2 } });
    await call(`${P()}/phases/${phases[1]!}`, { method: 'PUT', body: { name: 'Up next' } });
    await waitFor(
      async () => {
        const names = await columnNames();
        return names[1] === 'Up next' && names[2] === 'Review' && names.length === phases.length + 1
          ? names
          : undefined;
      },
      10_000,
      'the new and renamed columns on the page',
    );
    await page.context().close();
  });
});
