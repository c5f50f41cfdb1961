import * as grpc from '@grpc/grpc-js';
import type { boards } from '@flowboard/proto';
import {
  admin,
  call,
  createBoard,
  createStory,
  grpcError,
  newProjectId,
  reason,
  useBoardsService,
} from './harness';

useBoardsService();

const updateStory = (request: Partial<boards.UpdateStoryRequest>) =>
  call<boards.UpdateStoryResponse__Output>('UpdateStory', request).then((r) => r.story!);
const history = (request: Partial<boards.BatchGetStoryHistoryRequest>) =>
  call<boards.BatchGetStoryHistoryResponse__Output>('BatchGetStoryHistory', request).then((r) => r.stories);
const projectMetrics = (projectIds: number[]) =>
  call<boards.BatchGetProjectMetricsResponse__Output>('BatchGetProjectMetrics', {
    project_ids: projectIds,
  }).then((r) => r.projects);
const owned = (request: Partial<boards.ListOwnedStoriesRequest>) =>
  call<boards.ListOwnedStoriesResponse__Output>('ListOwnedStories', { page: 1, page_size: 100, ...request });

/**
 * Rewrites a story's history to fixed times (minutes after T0), so durations and metrics are exact. `spans` are
 * the story's steps oldest first: [type, start, end | null]; milestones are left to the service.
 */
const T0 = Date.UTC(2020, 0, 1, 0, 0, 0);
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
async function setStepTimes(
  projectId: number,
  storyId: number,
  spans: Array<[number, number | null]>,
  createdMinutes = spans[0]![0],
) {
  const { rows } = await admin.query<{ id: number }>(
    'SELECT id FROM story_steps WHERE project_id = $1 AND story_id = $2 ORDER BY id',
    [projectId, storyId],
  );
  expect(rows).toHaveLength(spans.length);
  for (const [i, row] of rows.entries()) {
    const [start, end] = spans[i]!;
    await admin.query('UPDATE story_steps SET start_time = $2, end_time = $3 WHERE id = $1', [
      row.id,
      at(start),
      end === null ? null : at(end),
    ]);
  }
  await admin.query('UPDATE stories SET created_at = $3 WHERE project_id = $1 AND id = $2', [
    projectId,
    storyId,
    at(createdMinutes),
  ]);
}

describe('BatchGetStoryHistory', () => {
  it('answers milestones and steps oldest first, open rows without end and with a running duration', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    const story = await createStory({ project_id: projectId });
    await updateStory({
      project_id: projectId,
      story_id: story.id,
      update_mask: ['phase'],
      phase_id: phases[2]!.id,
    });
    await updateStory({
      project_id: projectId,
      story_id: story.id,
      update_mask: ['status'],
      status: 'blocked',
    });
    const other = await createStory({ project_id: projectId, text: 'untouched' });

    const [one, two] = await history({
      project_id: projectId,
      story_ids: [story.id, other.id, 999],
      milestones: true,
      steps: true,
    });
    expect(one!.story_id).toBe(story.id);
    expect(one!.milestones.map((m) => m.phase?.name)).toEqual(['Backlog', 'Working']);
    expect(one!.steps.map((s) => s.type)).toEqual(['backlog', 'working', 'blocked']);
    expect(one!.milestones[0]!.end_time).toBe(one!.milestones[1]!.start_time);
    expect(one!.milestones[1]!.end_time).toBe('');
    expect(one!.steps[2]!.end_time).toBe('');
    for (const row of [...one!.milestones, ...one!.steps])
      expect(Number(row.duration)).toBeGreaterThanOrEqual(0);
    expect(one!.metrics).toBeNull(); // not requested
    expect(two!.steps.map((s) => s.type)).toEqual(['backlog']);
    // A story id that names nothing yields an empty entry, never another project's rows.
    const missing = await history({ project_id: newProjectId(), story_ids: [story.id], milestones: true });
    expect(missing).toEqual([expect.objectContaining({ story_id: story.id, milestones: [], steps: [] })]);
  });

  it('computes exact durations and story metrics from the stored times', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    const story = await createStory({ project_id: projectId });
    const move = (phase: number) =>
      updateStory({
        project_id: projectId,
        story_id: story.id,
        update_mask: ['phase'],
        phase_id: phases[phase]!.id,
      });
    await move(2); // working
    await updateStory({
      project_id: projectId,
      story_id: story.id,
      update_mask: ['status'],
      status: 'blocked',
    });
    await updateStory({
      project_id: projectId,
      story_id: story.id,
      update_mask: ['status'],
      status: 'started',
    });
    await move(4); // archive
    // backlog 0–10, working 10–40, blocked 40–50, working 50–60, archive from 60.
    await setStepTimes(projectId, story.id, [
      [0, 10],
      [10, 40],
      [40, 50],
      [50, 60],
      [60, null],
    ]);
    const [h] = await history({ project_id: projectId, story_ids: [story.id], steps: true, metrics: true });
    expect(h!.steps.map((s) => Number(s.duration)).slice(0, 4)).toEqual([600, 1800, 600, 600]);
    expect(Number(h!.steps[4]!.duration)).toBeGreaterThan(60 * 60 * 24 * 365); // open since 2020
    expect(h!.metrics).toEqual({
      create_time: '2020-01-01T00:00:00',
      start_time: '2020-01-01T00:10:00',
      finish_time: '2020-01-01T01:00:00',
      finished: true,
      lead_time: 3600,
      cycle_time: 3000,
      work_time: 2400,
      blocked_time: 600,
      wait_time: 0,
      efficiency: 80,
    });
  });

  it('refuses more than 1000 stories and a bad project id', async () => {
    const tooMany = await grpcError(
      history({
        project_id: newProjectId(),
        story_ids: Array.from({ length: 1001 }, (_, i) => i + 1),
        steps: true,
      }),
    );
    expect(tooMany.code).toBe(grpc.status.INVALID_ARGUMENT);
    const bad = await grpcError(history({ project_id: 0, story_ids: [1], steps: true }));
    expect(bad.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(reason(bad)).toBe('invalid-field');
  });
});

describe('BatchGetProjectMetrics', () => {
  it('counts stories now in Archive that entered it in the window; means; zeros for the rest', async () => {
    const busy = newProjectId();
    const idle = newProjectId();
    const phases = await createBoard(busy);
    await createBoard(idle);
    const finish = async (createdMinutesAgo: number, workMinutes: number, finishedMinutesAgo: number) => {
      const story = await createStory({ project_id: busy, phase_id: phases[2]!.id }); // working from creation
      await updateStory({
        project_id: busy,
        story_id: story.id,
        update_mask: ['phase'],
        phase_id: phases[4]!.id,
      });
      const now = Math.floor(Date.now() / 60_000) - T0 / 60_000;
      await setStepTimes(busy, story.id, [
        [now - createdMinutesAgo, now - createdMinutesAgo + workMinutes],
        [now - finishedMinutesAgo, null],
      ]);
      return story;
    };
    await finish(100, 60, 20); // lead 80 min, work 60
    await finish(50, 10, 10); // lead 40 min, work 10
    await finish(31 * 24 * 60 + 100, 10, 31 * 24 * 60); // finished 31 days ago: outside the window
    await createStory({ project_id: busy }); // unstarted

    const result = await projectMetrics([busy, idle, busy]);
    const byId = new Map(result.map((m) => [Number(m.project_id), m]));
    expect(byId.size).toBe(2);
    expect(byId.get(busy)).toEqual({
      project_id: busy,
      throughput: 2,
      lead_time: 3600,
      cycle_time: 3600,
      work_time: 2100,
      blocked_time: 0,
      wait_time: 1500,
      efficiency: 58.3,
    });
    expect(byId.get(idle)).toMatchObject({ throughput: 0, lead_time: 0, efficiency: 0 });
  });

  it('refuses a bad project id', async () => {
    const err = await grpcError(projectMetrics([0]));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
  });
});

describe('ListOwnedStories', () => {
  it('pages the owner’s stories of the given projects in project, phase index, board position order', async () => {
    const first = newProjectId();
    const second = first + 1;
    const outside = first + 2;
    const phasesFirst = await createBoard(first);
    await createBoard(second);
    await createBoard(outside);
    const owner = 7_000_000 + Math.floor(Math.random() * 1_000_000);
    await createStory({ project_id: second, text: 's-backlog', owner_id: owner });
    await createStory({
      project_id: first,
      text: 'f-working',
      owner_id: owner,
      phase_id: phasesFirst[2]!.id,
    });
    await createStory({ project_id: first, text: 'f-backlog-1', owner_id: owner, color: 'red' });
    await createStory({ project_id: first, text: 'f-backlog-2', owner_id: owner });
    await createStory({ project_id: first, text: 'someone else', owner_id: owner + 1 });
    await createStory({ project_id: outside, text: 'not a given project', owner_id: owner });

    const projects = [second, first];
    const all = await owned({ owner_id: owner, project_ids: projects });
    expect(all.stories.map((s) => s.text)).toEqual(['f-backlog-1', 'f-backlog-2', 'f-working', 's-backlog']);
    expect(all.total_items).toBe(4);
    const page2 = await owned({ owner_id: owner, project_ids: projects, page: 2, page_size: 3 });
    expect(page2.stories.map((s) => s.text)).toEqual(['s-backlog']);
    expect(page2.total_items).toBe(4);
    const past = await owned({ owner_id: owner, project_ids: projects, page: 9, page_size: 3 });
    // No keyset asked, none answered (an ordinary page: `keyset` stays unset).
    expect(past).toEqual({ stories: [], total_items: 4, keyset: null });
    const everything = await owned({
      owner_id: owner,
      project_ids: projects,
      all: true,
      page: 0,
      page_size: 0,
    });
    expect(everything.stories).toHaveLength(4);
    const red = await owned({ owner_id: owner, project_ids: projects, where: 'color:red' });
    expect(red.stories.map((s) => s.text)).toEqual(['f-backlog-1']);
    expect(await owned({ owner_id: owner, project_ids: [] })).toEqual({
      stories: [],
      total_items: 0,
      keyset: null,
    });

    const badFilter = await grpcError(owned({ owner_id: owner, project_ids: projects, where: 'colour:red' }));
    expect(reason(badFilter)).toBe('invalid-filter');
    const badPage = await grpcError(owned({ owner_id: owner, project_ids: projects, page: 0 }));
    expect(badPage.code).toBe(grpc.status.INVALID_ARGUMENT);
  });
});

describe('phase story counts (migration 0006 triggers) and board-order pages', () => {
  /** The stored per-phase counts equal the real ones. */
  async function expectCountsTrue(projectId: number) {
    const { rows } = await admin.query<{ id: number; stored: number; actual: number }>(
      `SELECT p.id, p.story_count AS stored,
              (SELECT count(*) FROM stories s WHERE s.project_id = p.project_id AND s.phase_id = p.id)::int AS actual
       FROM phases p WHERE p.project_id = $1 ORDER BY p.position`,
      [projectId],
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.stored).toBe(row.actual);
  }

  it('follow creates, moves, bulk updates and deletes; pages cut across phases stay in board order', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    const ids: number[] = [];
    for (const [text, phase] of [
      ['b1', 0],
      ['w1', 2],
      ['b2', 0],
      ['a1', 4],
      ['w2', 2],
      ['b3', 0],
    ] as const) {
      ids.push((await createStory({ project_id: projectId, text, phase_id: phases[phase]!.id })).id);
    }
    await expectCountsTrue(projectId);
    await updateStory({
      project_id: projectId,
      story_id: ids[0],
      update_mask: ['phase'],
      phase_id: phases[3]!.id,
    });
    await updateStory({ project_id: projectId, story_id: ids[1], update_mask: ['text'], text: 'w1 renamed' });
    await expectCountsTrue(projectId);
    await call('UpdateStories', {
      project_id: projectId,
      where: 'text:b',
      page: 1,
      page_size: 10,
      update_mask: ['phase'],
      phase_id: phases[1]!.id,
    });
    await expectCountsTrue(projectId);
    await call('DeleteStory', { project_id: projectId, story_id: ids[3] });
    await expectCountsTrue(projectId);

    // Board order: Ready (b2, b3, b1: the bulk update moves in board order), Working (w1, w2); nothing else.
    const all: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await call<boards.ListStoriesResponse__Output>('ListStories', {
        project_id: projectId,
        page,
        page_size: 2,
      });
      expect(res.total_items).toBe(5);
      all.push(...res.stories.map((s) => s.text));
    }
    expect(all).toEqual(['b2', 'b3', 'b1', 'w1 renamed', 'w2']);
    const filtered = await call<boards.ListStoriesResponse__Output>('ListStories', {
      project_id: projectId,
      where: 'not(text:w2)',
      page: 2,
      page_size: 2,
    });
    expect(filtered.total_items).toBe(4);
    expect(filtered.stories.map((s) => s.text)).toEqual(['b1', 'w1 renamed']);
    const phase = await call<boards.ListPhaseStoriesResponse__Output>('ListPhaseStories', {
      project_id: projectId,
      phase_id: phases[2]!.id,
      page: 1,
      page_size: 10,
    });
    expect(phase.stories.map((s) => s.text)).toEqual(['w1 renamed', 'w2']);
  });
});

describe('who made each change of the history', () => {
  it('records the user and the API key (id, name) on the milestone and step a change opens, as its event does', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    const triage = { id: 12, name: 'triage bot — Zoë' };
    const created = await call<boards.CreateStoryResponse__Output>(
      'CreateStory',
      { project_id: projectId, text: 'Attributed' },
      42,
      'history-authors-1',
      triage,
    ).then((r) => r.story!);
    // Moved by another user with no key in the metadata (a caller that sent none).
    await call(
      'UpdateStory',
      { project_id: projectId, story_id: created.id, update_mask: ['phase'], phase_id: phases[2]!.id },
      7,
    );
    const [story] = await history({
      project_id: projectId,
      story_ids: [created.id],
      milestones: true,
      steps: true,
    });
    expect(story!.milestones.map((m) => m.author)).toEqual([
      { user_id: 42, api_key_id: 12, api_key_name: 'triage bot — Zoë' },
      { user_id: 7, api_key_id: 0, api_key_name: '' },
    ]);
    expect(story!.steps.map((s) => s.author)).toEqual([
      { user_id: 42, api_key_id: 12, api_key_name: 'triage bot — Zoë' },
      { user_id: 7, api_key_id: 0, api_key_name: '' },
    ]);
    const { rows } = await admin.query<{ payload: { data: { type: string; actorKey?: unknown } } }>(
      "SELECT payload FROM outbox WHERE key = $1 AND payload->'data'->>'type' = 'story.created'",
      [String(projectId)],
    );
    expect(rows.map((r) => r.payload.data.actorKey)).toEqual([triage]);
  });

  it('leaves rows from before authors were recorded without one', async () => {
    const projectId = newProjectId();
    await createBoard(projectId);
    const created = await createStory({ project_id: projectId });
    await admin.query('UPDATE story_milestones SET author_id = NULL WHERE project_id = $1', [projectId]);
    const [story] = await history({ project_id: projectId, story_ids: [created.id], milestones: true });
    expect(story!.milestones).toHaveLength(1);
    expect(story!.milestones[0]!.author).toBeNull();
  });
});
