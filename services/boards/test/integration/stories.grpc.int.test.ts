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

const updateStory = (request: Partial<boards.UpdateStoryRequest>) =>
  call<boards.UpdateStoryResponse__Output>('UpdateStory', request).then((r) => r.story!);

/** A board with stories: [text, phase index, extra fields]. */
async function seeded(specs: Array<[string, number, Partial<boards.CreateStoryRequest>?]>) {
  const projectId = newProjectId();
  const phases = await createBoard(projectId);
  const stories = [];
  for (const [text, index, extra] of specs) {
    stories.push(await createStory({ project_id: projectId, text, phase_id: phases[index]!.id, ...extra }));
  }
  return { projectId, phases, stories };
}

const texts = (r: boards.ListStoriesResponse__Output) => r.stories.map((s) => s.text);

describe('ListStories', () => {
  it('pages in board order (phase index, then position) with exact totals', async () => {
    const { projectId } = await seeded([
      ['w1', 2],
      ['b1', 0],
      ['a1', 4],
      ['b2', 0],
      ['w2', 2],
    ]);
    expect(texts(await listStories({ project_id: projectId }))).toEqual(['b1', 'b2', 'w1', 'w2', 'a1']);
    const second = await listStories({ project_id: projectId, page: 2, page_size: 2 });
    expect([texts(second), second.total_items]).toEqual([['w1', 'w2'], 5]);
    const past = await listStories({ project_id: projectId, page: 9, page_size: 2 });
    expect([texts(past), past.total_items]).toEqual([[], 5]);
  });

  it('filters with the full grammar, never splicing values into SQL', async () => {
    const { projectId, phases } = await seeded([
      [
        'Build Spec house',
        2,
        { color: 'teal', size: '5', priority: '9', owner_id: 7, details: 'Only have 2 weeks' },
      ],
      ['Unveil Business Model, Starla', 3, { color: 'orange' }],
      ['Buy boat "The Sea Word"', 4, { color: 'orange', deadline: '2011-02-24T10:00:00' }],
    ]);
    const where = async (w: string, users: boards.UserAlias[] = []) =>
      texts(await listStories({ project_id: projectId, where: w, users }));
    expect(await where('color:ORANGE')).toEqual(['Unveil Business Model, Starla', 'Buy boat "The Sea Word"']);
    expect(await where('text:"the sea word"')).toEqual(['Buy boat "The Sea Word"']);
    expect(await where('text:"\\"The Sea"')).toEqual(['Buy boat "The Sea Word"']);
    expect(await where('details:WEEKS and size:5 and priority:9')).toEqual(['Build Spec house']);
    expect(await where('status:invalid')).toEqual([]);
    expect(await where('not(status:invalid)')).toHaveLength(3);
    expect(await where('not(owner:7)')).toEqual(['Unveil Business Model, Starla', 'Buy boat "The Sea Word"']);
    expect(await where(`phase:${phases[4]!.id} or phase:complete`)).toEqual([
      'Unveil Business Model, Starla',
      'Buy boat "The Sea Word"',
    ]);
    expect(await where('status:finished OR (color:teal AND not(id:2))')).toEqual([
      'Build Spec house',
      'Buy boat "The Sea Word"',
    ]);
    expect(await where('owner:gob', [{ id: 7, user_name: 'Gob', name: 'Gob Bluth' }])).toEqual([
      'Build Spec house',
    ]);
    expect(await where('owner:"gob bluth"', [{ id: 7, user_name: 'Gob', name: 'Gob Bluth' }])).toEqual([
      'Build Spec house',
    ]);
    expect(await where('owner:nobody')).toEqual([]);
    expect(await where('creator:42')).toHaveLength(3);
    expect(await where('tag:anything')).toEqual([]);
    expect(await where('deadline:2011-02-24')).toEqual(['Buy boat "The Sea Word"']);
    expect(await where('deadline:<2011-02-24')).toEqual([]);
    expect(await where('deadline:bogus')).toEqual([]);
    expect(await where('text:"\'; DROP TABLE stories; --"')).toEqual([]);
    expect(await where('text:%')).toEqual([]);
    expect(await where('text:_')).toEqual([]);
  });

  it('refuses a bad filter or paging as INVALID_ARGUMENT with its problem', async () => {
    const { projectId } = await seeded([]);
    const unknown = await grpcError(listStories({ project_id: projectId, where: 'colour:red' }));
    expect([unknown.code, reason(unknown)]).toEqual([grpc.status.INVALID_ARGUMENT, 'invalid-filter']);
    expect(unknown.details).toMatch(/colour/);
    const paging = await grpcError(listStories({ project_id: projectId, page: 0 }));
    expect(reason(paging)).toBe('invalid-parameter');
  });
});

describe('BatchGetStories', () => {
  it('answers the stories that exist, each as GetStory does, and leaves out ids naming nothing', async () => {
    const { projectId, stories } = await seeded([
      ['one', 0],
      ['two', 2, { color: 'red' }],
    ]);
    const other = await seeded([['elsewhere', 0]]);
    const ids = [stories[1]!.id, 999_999, stories[0]!.id, stories[0]!.id, other.stories[0]!.id, -1];
    const { stories: found } = await call<boards.BatchGetStoriesResponse__Output>('BatchGetStories', {
      project_id: projectId,
      story_ids: ids,
    });
    const single = await Promise.all(
      stories.map((s) =>
        call<boards.GetStoryResponse__Output>('GetStory', { project_id: projectId, story_id: s.id }),
      ),
    );
    expect([...found].sort((a, b) => Number(a.id) - Number(b.id))).toEqual(single.map((r) => r.story));
  });

  it('refuses more than 1,000 ids, and a bad project, as INVALID_ARGUMENT', async () => {
    const { projectId } = await seeded([]);
    const tooMany = Array.from({ length: 1001 }, (_, i) => i + 1);
    for (const request of [
      { project_id: projectId, story_ids: tooMany },
      { project_id: 0, story_ids: [1] },
    ]) {
      const err = await grpcError(call('BatchGetStories', request));
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    }
    const none = await call<boards.BatchGetStoriesResponse__Output>('BatchGetStories', {
      project_id: projectId,
      story_ids: [],
    });
    expect(none.stories).toEqual([]);
  });
});

describe('UpdateStory / DeleteStory', () => {
  const history = async (projectId: number, storyId: number) => {
    const m = await admin.query(
      `SELECT phase_id, end_time IS NULL AS open FROM story_milestones WHERE project_id = $1 AND story_id = $2 ORDER BY id`,
      [projectId, storyId],
    );
    const s = await admin.query(
      `SELECT type, end_time IS NULL AS open FROM story_steps WHERE project_id = $1 AND story_id = $2 ORDER BY id`,
      [projectId, storyId],
    );
    return { milestones: m.rows, steps: s.rows };
  };

  it('updates any subset; moves first, then status; history rows close and open', async () => {
    const { projectId, phases } = await seeded([['s', 0]]);
    const story = await updateStory({
      project_id: projectId,
      story_id: 1,
      update_mask: ['phase', 'status', 'blocked_reason', 'size', 'owner', 'deadline', 'unknown'],
      phase_id: phases[2]!.id,
      status: 'blocked',
      blocked_reason: 'waiting on Gob',
      size: ' L ',
      owner_id: 9,
      deadline: '2011-02-24',
      text: 'ignored: not in the mask',
    });
    expect(story).toMatchObject({
      text: 's',
      size: 'L',
      status: 'blocked',
      blocked_reason: 'waiting on Gob',
      owner_id: 9,
      deadline: '2011-02-24T00:00:00',
      phase: { id: phases[2]!.id, name: 'Working' },
    });
    const archived = await updateStory({
      project_id: projectId,
      story_id: 1,
      update_mask: ['phase', 'owner', 'deadline'],
      phase_id: phases[4]!.id,
      owner_id: 0,
      deadline: '',
    });
    expect(archived).toMatchObject({ status: 'finished', blocked_reason: '', owner_id: 0, deadline: '' });
    // Same phase again: no milestone, no step.
    await updateStory({
      project_id: projectId,
      story_id: 1,
      update_mask: ['phase'],
      phase_id: phases[4]!.id,
    });
    expect(await history(projectId, 1)).toEqual({
      milestones: [
        { phase_id: phases[0]!.id, open: false },
        { phase_id: phases[2]!.id, open: false },
        { phase_id: phases[4]!.id, open: true },
      ],
      steps: [
        { type: 'backlog', open: false },
        { type: 'blocked', open: false },
        { type: 'archive', open: true },
      ],
    });
  });

  it('refuses status rules and unknown phases; NOT_FOUND for unknown stories', async () => {
    const { projectId, phases } = await seeded([['s', 0]]);
    const inBacklog = await grpcError(
      updateStory({ project_id: projectId, story_id: 1, update_mask: ['status'], status: 'started' }),
    );
    expect([inBacklog.code, reason(inBacklog)]).toEqual([grpc.status.INVALID_ARGUMENT, 'invalid-state']);
    const foreign = await seeded([]);
    const phase = await grpcError(
      updateStory({
        project_id: projectId,
        story_id: 1,
        update_mask: ['phase'],
        phase_id: foreign.phases[1]!.id,
      }),
    );
    expect(reason(phase)).toBe('invalid-reference');
    const missing = await grpcError(
      updateStory({ project_id: projectId, story_id: 99, update_mask: ['text'], text: 'x' }),
    );
    expect(missing.code).toBe(grpc.status.NOT_FOUND);
    expect((await listStories({ project_id: projectId })).stories[0]).toMatchObject({
      status: 'planned',
      phase: { id: phases[0]!.id },
    });
  });

  it('deletes a story with its history; a second delete is NOT_FOUND', async () => {
    const { projectId } = await seeded([['s', 2]]);
    await call('DeleteStory', { project_id: projectId, story_id: 1 });
    expect((await listStories({ project_id: projectId })).total_items).toBe(0);
    expect(await history(projectId, 1)).toEqual({ milestones: [], steps: [] });
    expect((await grpcError(call('DeleteStory', { project_id: projectId, story_id: 1 }))).code).toBe(
      grpc.status.NOT_FOUND,
    );
  });

  it('keeps board positions unique and history consistent under 30 parallel moves', async () => {
    const specs: Array<[string, number]> = Array.from({ length: 10 }, (_, i) => [`s${i}`, 0]);
    const { projectId, phases } = await seeded(specs);
    const moves = Array.from({ length: 30 }, (_, i) =>
      updateStory({
        project_id: projectId,
        story_id: (i % 10) + 1,
        update_mask: ['phase'],
        phase_id: phases[1 + (i % 3)]!.id,
      }),
    );
    await Promise.all(moves);
    const { rows } = await admin.query(
      `SELECT phase_id, array_agg(board_position ORDER BY board_position) AS positions, count(*)::int AS n
       FROM stories WHERE project_id = $1 GROUP BY phase_id`,
      [projectId],
    );
    for (const row of rows) expect(new Set(row.positions).size).toBe(row.n);
    const open = await admin.query(
      `SELECT count(*)::int AS n FROM story_milestones WHERE project_id = $1 AND end_time IS NULL`,
      [projectId],
    );
    expect(open.rows[0].n).toBe(10);
    const listed = await listStories({ project_id: projectId });
    expect(listed.total_items).toBe(10);
  });
});
