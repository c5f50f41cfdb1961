import * as grpc from '@grpc/grpc-js';
import type { boards } from '@flowboard/proto';
import { pruneStoryTombstones } from '../../src/stories/db/story-tombstone-pruner';
import {
  admin,
  call,
  createBoard,
  createStory,
  grpcError,
  listStories,
  newProjectId,
  reason,
  useBoardsService,
} from './harness';

// Cursor paging (keyset) and updatedSince (sync) of ListStories, on real PostgreSQL: README "Sync: cursors and
// updatedSince".
useBoardsService();

type Page = boards.ListStoriesResponse__Output;
const updateStory = (request: Partial<boards.UpdateStoryRequest>) =>
  call<boards.UpdateStoryResponse__Output>('UpdateStory', request).then((r) => r.story!);
const deleteStory = (projectId: number, storyId: number) =>
  call('DeleteStory', { project_id: projectId, story_id: storyId });
const byId = (projectId: number, afterId: number, extra: Partial<boards.ListStoriesRequest> = {}) =>
  listStories({ project_id: projectId, keyset: { after_id: afterId }, ...extra });
const sync = (projectId: number, since: string, afterId = 0, pageSize = 100) =>
  listStories({ project_id: projectId, page_size: pageSize, keyset: { after_id: afterId }, sync: { since } });
const ids = (page: Page) => page.stories.map((s) => Number(s.id));
const deletedIds = (page: Page) => page.deleted.map((t) => Number(t.id));

async function board(n: number) {
  const projectId = newProjectId();
  const phases = await createBoard(projectId);
  const stories = [];
  for (let i = 0; i < n; i++)
    stories.push(await createStory({ project_id: projectId, text: `s${i}`, phase_id: phases[i % 3]!.id }));
  return { projectId, phases, stories };
}

/** A whole sync from `since`, page by page: the changed ids, the deleted ids, and the position to use next time. */
async function syncAll(projectId: number, since: string, pageSize = 2) {
  const changed: number[] = [];
  const deleted: number[] = [];
  let after = 0;
  let position = '';
  for (;;) {
    const page = await sync(projectId, since, after, pageSize);
    expect(page.sync_gone).toBe('');
    position ||= page.sync_position; // the first page's: the walk's start
    changed.push(...ids(page));
    deleted.push(...deletedIds(page));
    if (!page.more) return { changed, deleted, position };
    after = Math.max(...ids(page), ...deletedIds(page));
  }
}

describe('ListStories by cursor (keyset)', () => {
  it('pages in id order with more and exact totals, filtered, whatever the board order', async () => {
    const { projectId, phases, stories } = await board(5);
    // Board order puts the last story first; id order does not care.
    await updateStory({
      project_id: projectId,
      story_id: stories[4]!.id,
      update_mask: ['phase'],
      phase_id: phases[0]!.id,
    });
    const first = await byId(projectId, 0, { page_size: 2 });
    expect([ids(first), first.more, first.total_items]).toEqual([[1, 2], true, 5]);
    const last = await byId(projectId, 4, { page_size: 2 });
    expect([ids(last), last.more]).toEqual([[5], false]);
    const filtered = await byId(projectId, 1, { page_size: 2, where: `phase:${phases[0]!.id}` });
    expect([ids(filtered), filtered.more, filtered.total_items]).toEqual([[4, 5], false, 3]);
  });

  it('neither skips nor repeats a story moved or deleted across the cursor during the walk', async () => {
    const { projectId, phases, stories } = await board(9);
    const seen: number[] = [];
    let after = 0;
    for (let round = 0; ; round++) {
      const page = await byId(projectId, after, { page_size: 2 });
      seen.push(...ids(page));
      // Between pages: move a story not yet read to the top phase and one already read to the bottom, delete one.
      const ahead = stories[[3, 5, 7, 8][round] ?? 8]!.id; // never the deleted one
      await updateStory({
        project_id: projectId,
        story_id: ahead,
        update_mask: ['phase'],
        phase_id: phases[round % 3]!.id,
      });
      if (round === 1) await deleteStory(projectId, stories[6]!.id);
      if (!page.more) break;
      after = Math.max(...ids(page));
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 8, 9]);
  });

  it('refuses a negative cursor and where on a sync', async () => {
    const { projectId } = await board(1);
    const err = await grpcError(byId(projectId, -1));
    expect([err.code, reason(err)]).toEqual([grpc.status.INVALID_ARGUMENT, 'invalid-parameter']);
    const narrowed = await grpcError(
      listStories({ project_id: projectId, sync: { since: '' }, where: 'color:red' }),
    );
    expect([narrowed.code, reason(narrowed)]).toEqual([grpc.status.INVALID_ARGUMENT, 'invalid-parameter']);
  });
});

describe('ListStories since a sync position (updatedSince)', () => {
  it('lists every story first, then exactly what changed: created, updated, deleted (tombstones)', async () => {
    const { projectId, stories } = await board(4);
    const full = await syncAll(projectId, '');
    expect([full.changed, full.deleted]).toEqual([[1, 2, 3, 4], []]);

    expect(await syncAll(projectId, full.position)).toMatchObject({ changed: [], deleted: [] });
    await updateStory({
      project_id: projectId,
      story_id: stories[2]!.id,
      update_mask: ['color'],
      color: 'red',
    });
    await deleteStory(projectId, stories[0]!.id);
    const added = await createStory({ project_id: projectId, text: 'new' });
    const next = await syncAll(projectId, full.position);
    expect([next.changed, next.deleted]).toEqual([[3, Number(added.id)], [1]]);
    const page = await sync(projectId, full.position);
    expect(page.deleted[0]?.delete_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(page.total_items).toBe(3);
    // Nothing changed since the last sync: nothing listed.
    expect(await syncAll(projectId, next.position)).toMatchObject({ changed: [], deleted: [] });
  });

  it('lists a change committed after a sync by a transaction that started before it (updated_at would miss it)', async () => {
    const { projectId, stories } = await board(2);
    const before = await syncAll(projectId, '');
    const client = await admin.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `UPDATE stories SET text = 'late', updated_at = now() - interval '1 hour'
                          WHERE project_id = $1 AND id = $2`,
        [projectId, stories[1]!.id],
      );
      const during = await syncAll(projectId, before.position); // taken while the writer is still open
      expect(during.changed).toEqual([]);
      await client.query('COMMIT');
      const after = await syncAll(projectId, during.position);
      expect(after.changed).toEqual([2]);
    } finally {
      client.release();
    }
  });

  it('records tombstones when the whole board goes (project deletion cascades)', async () => {
    const { projectId } = await board(3);
    const { position } = await syncAll(projectId, '');
    await admin.query('DELETE FROM boards WHERE project_id = $1', [projectId]);
    expect(await syncAll(projectId, position)).toMatchObject({ changed: [], deleted: [1, 2, 3] });
  });

  it('answers sync_gone for a position older than pruned tombstones, another database or the future', async () => {
    const { projectId, stories } = await board(2);
    const old = await syncAll(projectId, '');
    await deleteStory(projectId, stories[0]!.id);
    // Age the tombstone past the retention, then prune: the horizon passes `old`.
    await admin.query(
      `UPDATE story_tombstones SET deleted_at = now() - interval '31 days' WHERE project_id = $1`,
      [projectId],
    );
    expect(await pruneStoryTombstones(admin, 30)).toBeGreaterThanOrEqual(1);
    expect((await sync(projectId, old.position)).sync_gone).toMatch(/older than the retained deletions/);
    const fresh = (await sync(projectId, '')).sync_position;
    expect((await sync(projectId, fresh)).sync_gone).toBe('');

    const [system, xmin, xmax] = fresh.split(':');
    expect((await sync(projectId, `12345:${xmin}:${xmax}:`)).sync_gone).toMatch(/another database/);
    const ahead = `${BigInt(xmax!) + 1_000_000n}`;
    expect((await sync(projectId, `${system}:${ahead}:${ahead}:`)).sync_gone).toMatch(
      /newer than this database/,
    );
    const err = await grpcError(sync(projectId, `${system}:9:5:`));
    expect([err.code, reason(err)]).toEqual([grpc.status.INVALID_ARGUMENT, 'invalid-parameter']);
  });
});
