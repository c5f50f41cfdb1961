import * as grpc from '@grpc/grpc-js';
import type { boards } from '@flowboard/proto';
import { call, createBoard, createStory, grpcError, newProjectId, reason, useBoardsService } from './harness';

// Cursor paging (keyset) of the lists besides ListStories (whose tests are story-sync.grpc.int.test.ts), on real
// PostgreSQL: README "Sync: cursors and updatedSince". The same tests walk every list; what differs is how its items
// are made.
useBoardsService();

/** An item of a list. Story ids are per project, so /me/stories items are told apart by project as well. */
interface Item {
  project: number;
  id: number;
}

/** What a list's answer holds, whichever the RPC. */
type Answer = {
  total_items: number;
  keyset: { more: boolean } | null;
} & Partial<Record<'stories' | 'tasks' | 'comments' | 'tags', Array<{ id: number; project_id?: number }>>>;

type Rpc = Parameters<typeof call>[0];

/** One list under test, made with its first items (and items around it that it must not show). */
interface List {
  rpc: Rpc;
  /** The request fields that name the list (and its filter). */
  request: object;
  field: 'stories' | 'tasks' | 'comments' | 'tags';
  items: Item[];
  add(): Promise<Item>;
  remove(item: Item): Promise<unknown>;
}

const key = (item: Item) => `${item.project}/${item.id}`;
const keys = (items: Item[]) => items.map(key);
/** The order a keyset answers in: by id (then project, for /me/stories). */
const order = (a: Item, b: Item) => a.id - b.id || a.project - b.project;
const ascending = (items: Item[]) => [...items].sort(order);
const START: Item = { project: 0, id: 0 };
const itemOf = (x: { id: number; project_id?: number }): Item => ({ project: x.project_id ?? 0, id: x.id });

/**
 * A keyset page (`page` left 0, which an ordinary page refuses: a keyset ignores it), after an item (its project
 * matters to /me/stories only) or an id.
 */
async function page(list: List, after: Item | number, pageSize: number, extra: object = {}) {
  const keyset =
    typeof after === 'number' ? { after_id: after } : { after_id: after.id, after_project_id: after.project };
  const answer = await call<Answer>(list.rpc, {
    ...list.request,
    page_size: pageSize,
    keyset,
    ...extra,
  });
  return { items: (answer[list.field] ?? []).map(itemOf), total: answer.total_items, keyset: answer.keyset };
}

/** Walks `list` from the start, calling `between` after each page that says more follow. */
async function walk(list: List, pageSize: number, between: (after: Item) => Promise<void> = async () => {}) {
  const seen: Item[] = [];
  const pages = [];
  let after = START;
  for (;;) {
    const answer = await page(list, after, pageSize);
    pages.push(answer);
    seen.push(...answer.items);
    if (!answer.keyset?.more) return { seen, pages };
    after = answer.items.at(-1)!;
    await between(after);
  }
}

async function board() {
  const projectId = newProjectId();
  const phases = await createBoard(projectId);
  return { projectId, phases };
}

const deleteStory = (item: Item) => call('DeleteStory', { project_id: item.project, story_id: item.id });
const story = async (request: Partial<boards.CreateStoryRequest>) => itemOf(await createStory(request));

/** Makes `n` items with `add`. */
async function times(n: number, add: () => Promise<Item>): Promise<Item[]> {
  const items: Item[] = [];
  for (let i = 0; i < n; i++) items.push(await add());
  return items;
}

/** Each list by its RPC, made with `n` items. */
const lists: Record<string, (n: number) => Promise<List>> = {
  async ListPhaseStories(n) {
    const { projectId, phases } = await board();
    const phaseId = phases[2]!.id;
    const add = async () => {
      await story({ project_id: projectId }); // the Backlog's, between them
      return story({ project_id: projectId, phase_id: phaseId });
    };
    return {
      rpc: 'ListPhaseStories',
      request: { project_id: projectId, phase_id: phaseId },
      field: 'stories',
      items: await times(n, add),
      add,
      remove: deleteStory,
    };
  },

  async ListTasks(n) {
    const { projectId } = await board();
    const [mine, other] = [await story({ project_id: projectId }), await story({ project_id: projectId })];
    const add = async () => {
      await call('CreateTask', { project_id: projectId, story_id: other.id, text: 'elsewhere' });
      const created = await call<boards.CreateTaskResponse__Output>('CreateTask', {
        project_id: projectId,
        story_id: mine.id,
        text: 'mine',
      });
      return itemOf(created.task!);
    };
    return {
      rpc: 'ListTasks',
      request: { project_id: projectId, story_id: mine.id },
      field: 'tasks',
      items: await times(n, add),
      add,
      remove: (item) => call('DeleteTask', { project_id: projectId, story_id: mine.id, task_id: item.id }),
    };
  },

  async ListComments(n) {
    const { projectId } = await board();
    const [mine, other] = [await story({ project_id: projectId }), await story({ project_id: projectId })];
    const add = async () => {
      await call('CreateComment', { project_id: projectId, story_id: other.id, text: 'elsewhere' });
      const created = await call<boards.CreateCommentResponse__Output>('CreateComment', {
        project_id: projectId,
        story_id: mine.id,
        text: 'mine',
      });
      return itemOf(created.comment!);
    };
    return {
      rpc: 'ListComments',
      request: { project_id: projectId, story_id: mine.id },
      field: 'comments',
      items: await times(n, add),
      add,
      remove: (item) =>
        call('DeleteComment', { project_id: projectId, story_id: mine.id, comment_id: item.id }),
    };
  },

  async ListTags(n) {
    const [{ projectId }, other] = [await board(), await board()];
    let made = 0;
    const add = async () => {
      const name = `tag ${++made}`;
      await call('CreateTag', { project_id: other.projectId, name });
      const created = await call<boards.CreateTagResponse__Output>('CreateTag', {
        project_id: projectId,
        name,
      });
      return itemOf(created.tag!);
    };
    return {
      rpc: 'ListTags',
      request: { project_id: projectId },
      field: 'tags',
      items: await times(n, add),
      add,
      remove: (item) => call('DeleteTag', { project_id: projectId, tag: String(item.id) }),
    };
  },

  async ListTagStories(n) {
    const { projectId } = await board();
    const add = async () => {
      await story({ project_id: projectId, tags: [{ id: 0, name: 'other' }] }); // another tag's, between them
      return story({ project_id: projectId, tags: [{ id: 0, name: 'focus' }] });
    };
    return {
      rpc: 'ListTagStories',
      request: { project_id: projectId, tag: 'focus' },
      field: 'stories',
      items: await times(n, add),
      add,
      // Untagged: the story stays, the list loses it.
      remove: (item) => call('RemoveTagStory', { project_id: projectId, tag: 'focus', story_id: item.id }),
    };
  },

  async ListStoryTags(n) {
    const { projectId } = await board();
    const [mine, other] = [await story({ project_id: projectId }), await story({ project_id: projectId })];
    let made = 0;
    const add = async () => {
      const name = `tag ${++made}`;
      await call('AddStoryTag', {
        project_id: projectId,
        story_id: other.id,
        tag: { id: 0, name: `other ${name}` },
        page: 1,
        page_size: 1,
      });
      const added = await call<boards.StoryTagsResponse__Output>('AddStoryTag', {
        project_id: projectId,
        story_id: mine.id,
        tag: { id: 0, name },
        page: 1,
        page_size: 1000,
      });
      return itemOf(added.tags.find((t) => t.name === name)!);
    };
    return {
      rpc: 'ListStoryTags',
      request: { project_id: projectId, story_id: mine.id },
      field: 'tags',
      items: await times(n, add),
      add,
      remove: (item) =>
        call('RemoveStoryTag', {
          project_id: projectId,
          story_id: mine.id,
          tag: String(item.id),
        }),
    };
  },

  async ListOwnedStories(n) {
    // Two given projects number their stories alike, so ids repeat across them (1, 1, 3, 3, ...). The owner's
    // stories of a project not given, and another owner's, are left out.
    const owner = 7_000_000 + Math.floor(Math.random() * 1_000_000);
    const [first, second, hidden] = [await board(), await board(), await board()].map((b) => b.projectId);
    const ownedIn = (projectId: number) => story({ project_id: projectId, owner_id: owner });
    let made = 0;
    const items = await times(n, async () => {
      const projectId = made++ % 2 === 0 ? first! : second!;
      await story({ project_id: projectId, owner_id: owner + 1 });
      await ownedIn(hidden!);
      return ownedIn(projectId);
    });
    return {
      rpc: 'ListOwnedStories',
      request: { owner_id: owner, project_ids: [first, second] },
      field: 'stories',
      items,
      // In `first`, which holds the highest ids: a story made during a walk is ahead of the cursor, as elsewhere.
      add: () => ownedIn(first!),
      remove: deleteStory,
    };
  },
};

describe.each(Object.keys(lists))('%s by keyset', (rpc) => {
  const make = (n: number) => lists[rpc]!(n);

  it('pages in id order after the cursor, at most page_size, with more and the total; keyset set even when empty', async () => {
    const list = await make(5);
    const all = ascending(list.items);

    const first = await page(list, 0, 2);
    expect(first.keyset).toEqual({ more: true });
    expect(first.total).toBe(5);
    expect(keys(first.items)).toEqual(keys(all.slice(0, 2)));
    const second = await page(list, all[1]!, 2);
    expect(keys(second.items)).toEqual(keys(all.slice(2, 4)));

    // The whole walk: every item once, in order; only its last page says no more.
    const { seen, pages } = await walk(list, 2);
    expect(keys(seen)).toEqual(keys(all));
    expect(pages.map((p) => [p.items.length <= 2, p.total])).toEqual(pages.map(() => [true, 5]));
    expect(pages.map((p) => p.keyset?.more)).toEqual([...pages.slice(1).map(() => true), false]);

    // A page holding exactly the rest says no more; past the last item an empty page still answers its keyset.
    expect(await page(list, 0, 5)).toMatchObject({ keyset: { more: false }, total: 5 });
    expect(await page(list, all.at(-1)!, 2)).toEqual({ items: [], total: 5, keyset: { more: false } });
  });

  it('walks exactly while items are made and removed between pages: none skipped, none repeated', async () => {
    const list = await make(9);
    const present = [...list.items];
    const made: Item[] = [];
    const removedAhead: Item[] = [];
    const drop = async (item: Item) => {
      await list.remove(item);
      present.splice(present.indexOf(item), 1);
    };
    const { seen } = await walk(list, 2, async (after) => {
      // The cursor's own item goes (the next page starts after its id all the same), so does the first item not
      // read yet; a new one is made, ahead of the cursor.
      await drop(present.find((i) => key(i) === key(after))!);
      const next = ascending(present).find((i) => order(i, after) > 0);
      if (next) {
        await drop(next);
        removedAhead.push(next);
      }
      made.push(await list.add());
      present.push(made.at(-1)!);
    });
    expect(removedAhead.length).toBeGreaterThan(1);
    // Every item but those removed before the walk reached them, each once, in order (removed after being read too).
    const expected = [...list.items, ...made].filter((i) => !removedAhead.includes(i));
    expect(keys(seen)).toEqual(keys(ascending(expected)));
  });

  it('answers an ordinary page without a keyset, as before', async () => {
    const list = await make(3);
    const ordinary = (page: number) => call<Answer>(list.rpc, { ...list.request, page, page_size: 2 });
    const answer = await ordinary(1);
    expect([answer.keyset, answer[list.field]!.length]).toEqual([null, 2]);
    // The page a keyset ignores is checked without one.
    expect((await grpcError(ordinary(0))).code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it('refuses a negative cursor and a page size out of range', async () => {
    const list = await make(1);
    for (const [after, size] of [
      [-1, 2],
      [0, 0],
      [0, 1001],
    ] as const) {
      const err = await grpcError(page(list, after, size));
      expect([err.code, reason(err)]).toEqual([grpc.status.INVALID_ARGUMENT, 'invalid-parameter']);
    }
  });
});

describe('keyset pages narrowed by where', () => {
  it('ListPhaseStories: the phase’s matches only, counted (total_items is new, with a keyset)', async () => {
    const { projectId, phases } = await board();
    const phaseId = phases[2]!.id;
    const red = [];
    for (const color of ['red', 'grey', 'red', 'red', 'grey']) {
      const s = await story({ project_id: projectId, phase_id: phaseId, color });
      if (color === 'red') red.push(s.id);
      await story({ project_id: projectId, color: 'red' }); // another phase's
    }
    const list = (after: number, where = '') =>
      call<boards.ListPhaseStoriesResponse__Output>('ListPhaseStories', {
        project_id: projectId,
        phase_id: phaseId,
        where,
        page_size: 2,
        keyset: { after_id: after },
      });
    const first = await list(0, 'color:red');
    expect([first.stories.map((s) => s.id), first.total_items, first.keyset]).toEqual([
      red.slice(0, 2),
      3,
      { more: true },
    ]);
    const last = await list(red[1]!, 'color:red');
    expect([last.stories.map((s) => s.id), last.keyset]).toEqual([red.slice(2), { more: false }]);
    expect((await list(0)).total_items).toBe(5);

    const unknown = await grpcError(
      call('ListPhaseStories', {
        project_id: projectId,
        phase_id: 999_999,
        page_size: 2,
        keyset: { after_id: 0 },
      }),
    );
    expect(unknown.code).toBe(grpc.status.NOT_FOUND);
    const badFilter = await grpcError(list(0, 'colour:red'));
    expect(reason(badFilter)).toBe('invalid-filter');
  });

  it('ListTagStories: the tag’s matches only; an unknown tag is NOT_FOUND', async () => {
    const { projectId } = await board();
    const red = [];
    for (const color of ['red', 'grey', 'red', 'red']) {
      const s = await story({ project_id: projectId, color, tags: [{ id: 0, name: 'focus' }] });
      if (color === 'red') red.push(s.id);
      await story({ project_id: projectId, color: 'red' }); // untagged
    }
    const list = (after: number, where = '', tag = 'focus') =>
      call<boards.TagStoriesResponse__Output>('ListTagStories', {
        project_id: projectId,
        tag,
        where,
        page_size: 2,
        keyset: { after_id: after },
      });
    const first = await list(0, 'color:red');
    expect([first.stories.map((s) => s.id), first.total_items, first.keyset]).toEqual([
      red.slice(0, 2),
      3,
      { more: true },
    ]);
    expect((await list(red[1]!, 'color:red')).stories.map((s) => s.id)).toEqual(red.slice(2));
    expect((await list(0)).total_items).toBe(4);
    expect((await grpcError(list(0, '', 'nothing'))).code).toBe(grpc.status.NOT_FOUND);
  });

  it('ListOwnedStories: the owner’s matches in the given projects only; not with `all`', async () => {
    const owner = 8_000_000 + Math.floor(Math.random() * 1_000_000);
    const [first, second, hidden] = [await board(), await board(), await board()].map((b) => b.projectId);
    const red: Item[] = [];
    for (const [projectId, color] of [
      [first, 'red'],
      [second, 'red'],
      [first, 'grey'],
      [second, 'red'],
      [hidden, 'red'],
    ] as const) {
      const s = await story({ project_id: projectId, owner_id: owner, color });
      if (color === 'red' && projectId !== hidden) red.push(s);
      await story({ project_id: projectId, owner_id: owner + 1, color: 'red' });
    }
    const request = { owner_id: owner, project_ids: [first, second], where: 'color:red' };
    const list = (after: number, extra: object = {}) =>
      call<boards.ListOwnedStoriesResponse__Output>('ListOwnedStories', {
        ...request,
        page_size: 10,
        keyset: { after_id: after },
        ...extra,
      });
    const all = await list(0);
    expect([keys(all.stories.map(itemOf)), all.total_items, all.keyset]).toEqual([
      keys(ascending(red)),
      3,
      { more: false },
    ]);
    const withAll = await grpcError(list(0, { all: true }));
    expect([withAll.code, reason(withAll)]).toEqual([grpc.status.INVALID_ARGUMENT, 'invalid-parameter']);
    const none = await list(0, { project_ids: [] });
    expect([none.stories, none.total_items, none.keyset]).toEqual([[], 0, { more: false }]);
  });
});

describe('keyset pages answer the errors of ordinary pages', () => {
  it('an unknown story is NOT_FOUND; a filter term on tasks, comments or tags is invalid-filter', async () => {
    const { projectId } = await board();
    const known = await story({ project_id: projectId });
    for (const rpc of ['ListTasks', 'ListComments', 'ListStoryTags'] as const) {
      const list = (storyId: number, where = '') =>
        call(rpc, { project_id: projectId, story_id: storyId, where, page_size: 2, keyset: { after_id: 0 } });
      expect((await grpcError(list(999_999))).code).toBe(grpc.status.NOT_FOUND);
      expect(reason(await grpcError(list(known.id, 'color:red')))).toBe('invalid-filter');
    }
    const tags = await grpcError(
      call('ListTags', { project_id: projectId, where: 'name:x', page_size: 2, keyset: { after_id: 0 } }),
    );
    expect(reason(tags)).toBe('invalid-filter');
  });
});

describe('ListOwnedStories by keyset, across projects numbering stories alike', () => {
  it('walks (id, project) pairs: stories sharing an id are split across pages like any others', async () => {
    const owner = 9_000_000 + Math.floor(Math.random() * 1_000_000);
    const projects = [await board(), await board(), await board()]
      .map((b) => b.projectId)
      .sort((a, b) => a - b);
    // Story 1 in each of three projects, then story 2 in the first.
    for (const projectId of projects) await story({ project_id: projectId, owner_id: owner });
    await story({ project_id: projects[0]!, owner_id: owner });
    const list = (after: Item, pageSize: number) =>
      call<boards.ListOwnedStoriesResponse__Output>('ListOwnedStories', {
        owner_id: owner,
        project_ids: projects,
        page_size: pageSize,
        keyset: { after_id: after.id, after_project_id: after.project },
      });
    const summary = (r: boards.ListOwnedStoriesResponse__Output) => [
      r.stories.map((s) => key(itemOf(s))),
      r.keyset?.more,
    ];
    const [a, b, c] = projects as [number, number, number];
    expect(summary(await list(START, 2))).toEqual([[`${a}/1`, `${b}/1`], true]);
    expect(summary(await list({ project: b, id: 1 }, 2))).toEqual([[`${c}/1`, `${a}/2`], false]);
    expect(summary(await list({ project: c, id: 1 }, 2))).toEqual([[`${a}/2`], false]);
    expect(summary(await list(START, 4))).toEqual([[`${a}/1`, `${b}/1`, `${c}/1`, `${a}/2`], false]);
  });

  it('refuses a negative project in the cursor', async () => {
    const err = await grpcError(
      call('ListOwnedStories', {
        owner_id: 1,
        project_ids: [1],
        page_size: 2,
        keyset: { after_id: 1, after_project_id: -1 },
      }),
    );
    expect([err.code, reason(err)]).toEqual([grpc.status.INVALID_ARGUMENT, 'invalid-parameter']);
  });
});
