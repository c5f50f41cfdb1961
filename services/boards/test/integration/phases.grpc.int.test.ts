import * as grpc from '@grpc/grpc-js';
import type { boards } from '@flowboard/proto';
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

useBoardsService();

const listPhases = (projectId: number, where = '') =>
  call<boards.ListPhasesResponse__Output>('ListPhases', { project_id: projectId, where }).then(
    (r) => r.phases,
  );
const createPhase = (request: Partial<boards.CreatePhaseRequest>) =>
  call<boards.CreatePhaseResponse__Output>('CreatePhase', { description: '', ...request }).then(
    (r) => r.phase!,
  );
const updatePhase = (request: Partial<boards.UpdatePhaseRequest>) =>
  call<boards.UpdatePhaseResponse__Output>('UpdatePhase', request).then((r) => r.phase!);
const deletePhase = (projectId: number, phaseId: number) =>
  call('DeletePhase', { project_id: projectId, phase_id: phaseId });
const reorderPhases = (projectId: number, ids: number[]) =>
  call<boards.ReorderPhasesResponse__Output>('ReorderPhases', { project_id: projectId, phase_ids: ids }).then(
    (r) => r.phases,
  );
const updateStories = (request: Partial<boards.UpdateStoriesRequest>) =>
  call<boards.UpdateStoriesResponse__Output>('UpdateStories', { page: 1, page_size: 100, ...request });
const names = (phases: boards.Phase__Output[]) => phases.map((p) => `${p.name}@${p.index}`);

/** Positions are dense 0..n-1, Backlog first and Archive last. */
async function expectSaneOrder(projectId: number, backlogId: number, archiveId: number) {
  const phases = await listPhases(projectId);
  expect(phases.map((p) => p.index)).toEqual([...phases.keys()]);
  expect(phases[0]!.id).toBe(backlogId);
  expect(phases[phases.length - 1]!.id).toBe(archiveId);
  return phases;
}

describe('phases', () => {
  it('create (default before Archive, explicit index shifts), get, update, move, filter by name', async () => {
    const projectId = newProjectId();
    const initial = await createBoard(projectId);
    const review = await createPhase({ project_id: projectId, name: 'Review', limit: 3 });
    expect(review).toMatchObject({ name: 'Review', index: 4, limit: 3 });
    await createPhase({ project_id: projectId, name: 'Triage', has_index: true, index: 1 });
    expect(names(await listPhases(projectId))).toEqual([
      'Backlog@0',
      'Triage@1',
      'Ready@2',
      'Working@3',
      'Complete@4',
      'Review@5',
      'Archive@6',
    ]);
    const moved = await updatePhase({
      project_id: projectId,
      phase_id: review.id,
      update_mask: ['index', 'limit', 'name'],
      index: 1,
      limit: 0,
      name: 'Ready',
    });
    expect(moved).toMatchObject({ index: 1, limit: 0, name: 'Ready' });
    expect(names(await listPhases(projectId, 'name:ready'))).toEqual(['Ready@1', 'Ready@3']);
    const got = await call<boards.GetPhaseResponse__Output>('GetPhase', {
      project_id: projectId,
      phase_id: review.id,
    });
    expect(got.phase!.index).toBe(1);
    await expectSaneOrder(projectId, initial[0]!.id, initial[4]!.id);
    for (const request of [
      { phase_id: initial[0]!.id, update_mask: ['index'], index: 1 },
      { phase_id: initial[4]!.id, update_mask: ['index'], index: 2 },
      { phase_id: review.id, update_mask: ['index'], index: 0 },
      { phase_id: review.id, update_mask: ['index'], index: 6 },
      { phase_id: review.id, update_mask: ['limit'], limit: -1 },
    ]) {
      const err = await grpcError(updatePhase({ project_id: projectId, ...request }));
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    }
    for (const index of [0, 8, -1]) {
      const err = await grpcError(createPhase({ project_id: projectId, name: 'x', has_index: true, index }));
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    }
    const renamed = await updatePhase({
      project_id: projectId,
      phase_id: initial[4]!.id,
      update_mask: ['name', 'index'],
      name: 'Done',
      index: 6,
    });
    expect(renamed).toMatchObject({ name: 'Done', index: 6 });
    const missing = await grpcError(call('GetPhase', { project_id: projectId, phase_id: 999_999_999 }));
    expect(missing.code).toBe(grpc.status.NOT_FOUND);
  });

  it('delete: Backlog/Archive refused, a phase with stories is 409 and keeps them, else the gap closes', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    for (const p of [phases[0]!, phases[4]!]) {
      expect((await grpcError(deletePhase(projectId, p.id))).code).toBe(grpc.status.INVALID_ARGUMENT);
    }
    const story = await createStory({ project_id: projectId, phase_id: phases[2]!.id });
    const busy = await grpcError(deletePhase(projectId, phases[2]!.id));
    expect(busy.code).toBe(grpc.status.ABORTED);
    expect(reason(busy)).toBe('conflict');
    expect((await listStories({ project_id: projectId })).stories.map((s) => s.id)).toEqual([story.id]);
    await deletePhase(projectId, phases[1]!.id);
    expect(names(await listPhases(projectId))).toEqual(['Backlog@0', 'Working@1', 'Complete@2', 'Archive@3']);
  });

  it('reorder: every phase once, Backlog first and Archive last', async () => {
    const projectId = newProjectId();
    const ids = (await createBoard(projectId)).map((p) => p.id);
    const [b, r, w, c, a] = ids as [number, number, number, number, number];
    for (const bad of [
      [b, r, w, a],
      [b, r, r, w, c, a],
      [r, b, w, c, a],
      [b, r, w, a, c],
      [b, r, w, c, 1, a],
    ]) {
      expect((await grpcError(reorderPhases(projectId, bad))).code).toBe(grpc.status.INVALID_ARGUMENT);
    }
    expect(names(await reorderPhases(projectId, [b, c, r, w, a]))).toEqual([
      'Backlog@0',
      'Complete@1',
      'Ready@2',
      'Working@3',
      'Archive@4',
    ]);
  });

  it('concurrent creates, moves and reorders never leave duplicate or missing indexes', async () => {
    const projectId = newProjectId();
    const initial = await createBoard(projectId);
    const backlog = initial[0]!.id;
    const archive = initial[4]!.id;
    const ops: Array<Promise<unknown>> = [];
    for (let i = 0; i < 12; i++) {
      ops.push(createPhase({ project_id: projectId, name: `P${i}`, has_index: i % 2 === 1, index: 1 }));
      ops.push(
        updatePhase({
          project_id: projectId,
          phase_id: initial[1 + (i % 3)]!.id,
          update_mask: ['index'],
          index: 1 + (i % 3),
        }),
      );
      ops.push(
        (async () => {
          const current = (await listPhases(projectId)).map((p) => p.id);
          const middle = current.slice(1, -1).reverse();
          // May race with a create and then list a stale set: that is a clean 400, never a corrupt board.
          return reorderPhases(projectId, [backlog, ...middle, archive]).catch((err: grpc.ServiceError) => {
            if (err.code !== grpc.status.INVALID_ARGUMENT) throw err;
          });
        })(),
      );
    }
    await Promise.all(ops);
    const phases = await expectSaneOrder(projectId, backlog, archive);
    expect(phases).toHaveLength(5 + 12);
  });
});

describe('BatchListPhases', () => {
  it("answers each project's phases by position in one call, the order asked; no board → none", async () => {
    const [a, b, none] = [newProjectId(), newProjectId(), newProjectId()];
    await createBoard(a);
    await createBoard(b);
    await createPhase({ project_id: b, name: 'Review' }); // before Archive: b has six
    const { projects } = await call<boards.BatchListPhasesResponse__Output>('BatchListPhases', {
      project_ids: [b, none, a, b],
    });
    expect(projects.map((p) => p.project_id)).toEqual([b, none, a]);
    expect(projects[0]!.phases).toEqual(await listPhases(b));
    expect(projects[0]!.phases.map((p) => p.name)).toEqual([
      'Backlog',
      'Ready',
      'Working',
      'Complete',
      'Review',
      'Archive',
    ]);
    expect(projects[1]!.phases).toEqual([]);
    expect(projects[2]!.phases).toEqual(await listPhases(a));
  });

  it('refuses a non-positive id (INVALID_ARGUMENT)', async () => {
    const err = await grpcError(call('BatchListPhases', { project_ids: [newProjectId(), -1] }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
  });
});

describe('phase stories', () => {
  it('ListPhaseStories narrows and slices; ReorderPhaseStories takes exactly the phase stories', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    const working = phases[2]!.id;
    const s = [];
    for (const [text, color] of [
      ['w1', 'red'],
      ['w2', 'grey'],
      ['w3', 'red'],
    ] as const) {
      s.push(await createStory({ project_id: projectId, phase_id: working, text, color }));
    }
    await createStory({ project_id: projectId, text: 'backlog' });
    const list = (request: Partial<boards.ListPhaseStoriesRequest>) =>
      call<boards.ListPhaseStoriesResponse__Output>('ListPhaseStories', {
        project_id: projectId,
        phase_id: working,
        page: 1,
        page_size: 100,
        ...request,
      });
    const all = await list({});
    expect(all.phase!.name).toBe('Working');
    expect(all.stories.map((x) => x.text)).toEqual(['w1', 'w2', 'w3']);
    expect((await list({ where: 'color:red' })).stories.map((x) => x.text)).toEqual(['w1', 'w3']);
    expect((await list({ page: 2, page_size: 2 })).stories.map((x) => x.text)).toEqual(['w3']);
    const reorder = (ids: number[]) =>
      call<boards.ReorderPhaseStoriesResponse__Output>('ReorderPhaseStories', {
        project_id: projectId,
        phase_id: working,
        story_ids: ids,
      });
    const [a, b, c] = s.map((x) => x.id) as [number, number, number];
    for (const bad of [
      [a, b],
      [a, b, c, c],
      [a, b, c, 4],
    ]) {
      expect((await grpcError(reorder(bad))).code).toBe(grpc.status.INVALID_ARGUMENT);
    }
    const done = await reorder([c, a, b]);
    expect(done.stories.map((x) => x.text)).toEqual(['w3', 'w1', 'w2']);
    expect((await list({})).stories.map((x) => x.text)).toEqual(['w3', 'w1', 'w2']);
    // A story moved in afterwards goes to the bottom.
    await call('UpdateStory', {
      project_id: projectId,
      story_id: 4,
      update_mask: ['phase'],
      phase_id: working,
    });
    expect((await list({})).stories.map((x) => x.text)).toEqual(['w3', 'w1', 'w2', 'backlog']);
  });

  it('concurrent reorders of a phase leave each story exactly once', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    const ids: number[] = [];
    for (let i = 0; i < 8; i++)
      ids.push((await createStory({ project_id: projectId, phase_id: phases[1]!.id })).id);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call('ReorderPhaseStories', {
          project_id: projectId,
          phase_id: phases[1]!.id,
          story_ids: i % 2 ? [...ids].reverse() : ids,
        }),
      ),
    );
    const { stories } = await listStories({ project_id: projectId });
    expect([...stories.map((x) => x.id)].sort((x, y) => x - y)).toEqual(ids);
  });
});

describe('UpdateStories (bulk)', () => {
  it('updates every match in one transaction and answers the page of affected stories', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    for (const [text, color] of [
      ['a', 'red'],
      ['b', 'red'],
      ['c', 'grey'],
    ] as const) {
      await createStory({ project_id: projectId, text, color });
    }
    const res = await updateStories({
      project_id: projectId,
      where: 'color:red',
      update_mask: ['color', 'phase'],
      color: 'blue',
      phase_id: phases[2]!.id,
      page: 1,
      page_size: 1,
    });
    expect(res.total_items).toBe(2);
    expect(res.stories.map((s) => [s.text, s.color, s.status])).toEqual([['a', 'blue', 'started']]);
    const after = await listStories({ project_id: projectId });
    expect(after.stories.map((s) => `${s.text}:${s.color}:${s.phase!.name}`)).toEqual([
      'c:grey:Backlog',
      'a:blue:Working',
      'b:blue:Working',
    ]);
    const none = await updateStories({
      project_id: projectId,
      where: 'color:purple',
      update_mask: ['text'],
      text: 'x',
    });
    expect(none).toMatchObject({ total_items: 0, stories: [] });
  });

  it('is all or nothing: one failing story leaves every story unchanged', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    await createStory({ project_id: projectId, text: 'working', phase_id: phases[2]!.id });
    await createStory({ project_id: projectId, text: 'backlog' }); // status cannot be set in Backlog
    const before = await listStories({ project_id: projectId });
    const err = await grpcError(
      updateStories({
        project_id: projectId,
        where: 'not(color:red)',
        update_mask: ['status', 'text'],
        status: 'blocked',
        text: 'changed',
      }),
    );
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(await listStories({ project_id: projectId })).toEqual(before);
  });

  it('writes more matches than one statement takes (1,100: three set-based writes), in board order, all or nothing', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    for (let made = 0; made < 1_100; made += 100)
      await call('BulkCreateStories', {
        project_id: projectId,
        stories: Array.from({ length: 100 }, (_, i) => ({ text: `story ${made + i}` })),
      });
    const inPhase = async (phaseId: number) =>
      (
        await admin.query(
          'SELECT id FROM stories WHERE project_id = $1 AND phase_id = $2 ORDER BY board_position',
          [projectId, phaseId],
        )
      ).rows.map((r) => Number(r.id));
    const backlog = await inPhase(phases[0]!.id);
    expect(backlog).toHaveLength(1_100);
    const events = async () =>
      Number(
        (
          await admin.query(
            `SELECT count(*) AS n FROM outbox WHERE key = $1 AND payload->'data'->>'type' = 'story.moved'`,
            [String(projectId)],
          )
        ).rows[0].n,
      );

    const moved = await updateStories({
      project_id: projectId,
      where: 'not(color:red)',
      update_mask: ['phase'],
      phase_id: phases[2]!.id,
    });
    expect(moved.total_items).toBe(1_100);
    expect(await inPhase(phases[2]!.id)).toEqual(backlog); // at the bottom of Working, in board order
    expect(await events()).toBe(1_100);

    // The last story in board order (in Archive, where no status can be set) fails in the third statement's chunk:
    // the two chunks written before it are rolled back with it.
    const last = backlog[backlog.length - 1]!;
    await call('UpdateStory', {
      project_id: projectId,
      story_id: last,
      update_mask: ['phase'],
      phase_id: phases[phases.length - 1]!.id,
    });
    const err = await grpcError(
      updateStories({
        project_id: projectId,
        where: 'not(color:red)',
        update_mask: ['status'],
        status: 'ready',
      }),
    );
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toContain(`Story ${last}:`);
    const { rows } = await admin.query(
      `SELECT count(*) AS n FROM stories WHERE project_id = $1 AND status = 'ready'`,
      [projectId],
    );
    expect(Number(rows[0].n)).toBe(0);
    expect(await events()).toBe(1_101);
  });

  it('requires where', async () => {
    const projectId = newProjectId();
    await createBoard(projectId);
    const err = await grpcError(
      updateStories({ project_id: projectId, where: ' ', update_mask: ['text'], text: 'x' }),
    );
    expect([err.code, reason(err)]).toEqual([grpc.status.INVALID_ARGUMENT, 'invalid-parameter']);
  });
});
