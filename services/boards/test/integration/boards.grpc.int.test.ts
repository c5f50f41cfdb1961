import * as grpc from '@grpc/grpc-js';
import type { boards } from '@flowboard/proto';
import { admin, call, createBoard, createStory, grpcError, newProjectId, useBoardsService } from './harness';

useBoardsService();

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

describe('CreateBoard / ListPhases', () => {
  it('creates the five default phases, by index', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    expect(
      phases.map(({ name, description, index, limit }) => ({ name, description, index, limit })),
    ).toEqual([
      { name: 'Backlog', description: 'Stories that will be worked on someday', index: 0, limit: 0 },
      { name: 'Ready', description: 'Stories that are ready to be worked on', index: 1, limit: 0 },
      { name: 'Working', description: 'Stories that are currently being worked on', index: 2, limit: 0 },
      { name: 'Complete', description: 'Stories that have been completed', index: 3, limit: 0 },
      { name: 'Archive', description: 'Stories that are history', index: 4, limit: 0 },
    ]);
    expect(new Set(phases.map((p) => p.id)).size).toBe(5);
    const listed = await call<boards.ListPhasesResponse__Output>('ListPhases', { project_id: projectId });
    expect(listed.phases).toEqual(phases);
  });

  it('is idempotent, even under 5 concurrent calls', async () => {
    const projectId = newProjectId();
    const results = await Promise.all(Array.from({ length: 5 }, () => createBoard(projectId)));
    for (const phases of results) expect(phases).toEqual(results[0]);
    expect(results[0]).toHaveLength(5);
    const again = await createBoard(projectId);
    expect(again).toEqual(results[0]);
    const { rows } = await admin.query('SELECT count(*)::int AS n FROM phases WHERE project_id = $1', [
      projectId,
    ]);
    expect(rows[0].n).toBe(5);
  });

  it('ListPhases is NOT_FOUND without a board', async () => {
    const error = await grpcError(call('ListPhases', { project_id: newProjectId() }));
    expect(error.code).toBe(grpc.status.NOT_FOUND);
  });

  it('refuses project id 0 as INVALID_ARGUMENT', async () => {
    const error = await grpcError(createBoard(0));
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.metadata.get('flowboard-problem')).toEqual(['invalid-field']);
  });
});

describe('CreateStory / GetStory', () => {
  it('numbers stories 1, 2, 3 per project, with status by phase', async () => {
    const projectId = newProjectId();
    const otherProjectId = newProjectId();
    const phases = await createBoard(projectId);
    await createBoard(otherProjectId);

    const first = await createStory(
      {
        project_id: projectId,
        text: 'Build Spec house',
        size: ' 5 ',
        priority: '9',
        color: 'TEAL',
        deadline: '2011-02-24',
        owner_id: 7,
      },
      1,
    );
    const second = await createStory({ project_id: projectId, phase_id: phases[2]!.id });
    const third = await createStory({ project_id: projectId, phase_id: phases[4]!.id });
    const elsewhere = await createStory({ project_id: otherProjectId });

    expect([first.id, second.id, third.id, elsewhere.id]).toEqual([1, 2, 3, 1]);
    expect(first).toMatchObject({
      project_id: projectId,
      text: 'Build Spec house',
      details: '',
      size: '5',
      priority: '9',
      color: 'teal',
      deadline: '2011-02-24T00:00:00',
      status: 'planned',
      blocked_reason: '',
      phase: { id: phases[0]!.id, name: 'Backlog' },
      creator_id: 1,
      owner_id: 7,
    });
    expect(first.create_time).toMatch(TIMESTAMP);
    expect(Math.abs(Date.parse(`${first.create_time}Z`) - Date.now())).toBeLessThan(60_000);
    expect(second).toMatchObject({
      status: 'started',
      phase: { id: phases[2]!.id, name: 'Working' },
      owner_id: 0,
      color: 'grey',
      deadline: '',
    });
    expect(third).toMatchObject({ status: 'finished', phase: { name: 'Archive' } });

    const got = await call<boards.GetStoryResponse__Output>('GetStory', {
      project_id: projectId,
      story_id: 1,
    });
    expect(got.story).toEqual(first);

    // History: the first milestone (creation phase) and the first step (by status) are open.
    const milestones = await admin.query(
      'SELECT story_id, phase_id, end_time FROM story_milestones WHERE project_id = $1 ORDER BY story_id',
      [projectId],
    );
    expect(milestones.rows).toEqual([
      { story_id: 1, phase_id: phases[0]!.id, end_time: null },
      { story_id: 2, phase_id: phases[2]!.id, end_time: null },
      { story_id: 3, phase_id: phases[4]!.id, end_time: null },
    ]);
    const steps = await admin.query(
      'SELECT story_id, type FROM story_steps WHERE project_id = $1 ORDER BY story_id',
      [projectId],
    );
    expect(steps.rows.map((r) => r.type)).toEqual(['backlog', 'working', 'archive']);
  });

  it('appends stories to the bottom of their phase', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    await createStory({ project_id: projectId });
    await createStory({ project_id: projectId, phase_id: phases[1]!.id });
    await createStory({ project_id: projectId });
    const { rows } = await admin.query(
      'SELECT id, phase_id, board_position FROM stories WHERE project_id = $1 ORDER BY id',
      [projectId],
    );
    expect(rows.map((r) => [r.id, r.board_position])).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
    ]);
  });

  it("refuses another project's phase as INVALID_ARGUMENT (invalid-reference), consuming no id", async () => {
    const projectId = newProjectId();
    const foreignProjectId = newProjectId();
    await createBoard(projectId);
    const foreign = await createBoard(foreignProjectId);
    const error = await grpcError(createStory({ project_id: projectId, phase_id: foreign[1]!.id }));
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.metadata.get('flowboard-problem')).toEqual(['invalid-reference']);
    const unknown = await grpcError(createStory({ project_id: projectId, phase_id: 9_000_000_000_000 }));
    expect(unknown.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await createStory({ project_id: projectId })).id).toBe(1);
  });

  it('validates fields: text, colour, deadline', async () => {
    const projectId = newProjectId();
    await createBoard(projectId);
    const cases: Array<[Partial<boards.CreateStoryRequest>, RegExp]> = [
      [{ text: '' }, /text/],
      [{ text: 'x'.repeat(2001) }, /text/],
      [{ color: 'pink' }, /color/],
      [{ deadline: '2011-02-30' }, /deadline/],
      [{ size: 's'.repeat(51) }, /size/],
    ];
    for (const [request, field] of cases) {
      const error = await grpcError(createStory({ project_id: projectId, ...request }));
      expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(error.details).toMatch(field);
    }
  });

  it('is NOT_FOUND without a board, and UNAUTHENTICATED without a caller', async () => {
    expect((await grpcError(createStory({ project_id: newProjectId() }))).code).toBe(grpc.status.NOT_FOUND);
    const projectId = newProjectId();
    await createBoard(projectId);
    const error = await grpcError(createStory({ project_id: projectId }, null));
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('GetStory is NOT_FOUND for an unknown story or another project', async () => {
    const projectId = newProjectId();
    await createBoard(projectId);
    await createStory({ project_id: projectId });
    for (const request of [
      { project_id: projectId, story_id: 2 },
      { project_id: newProjectId(), story_id: 1 },
    ]) {
      const error = await grpcError(call('GetStory', request));
      expect(error.code).toBe(grpc.status.NOT_FOUND);
      expect(error.details).toBe('Story not found');
    }
  });

  it('gives 20 concurrent creates the ids 1..20, without gaps or duplicates', async () => {
    const projectId = newProjectId();
    await createBoard(projectId);
    const stories = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createStory({ project_id: projectId, text: `story ${i}` })),
    );
    expect(stories.map((s) => s.id).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const { rows } = await admin.query(
      'SELECT last_story_id, (SELECT array_agg(board_position ORDER BY board_position) FROM stories WHERE project_id = $1) AS positions FROM boards WHERE project_id = $1',
      [projectId],
    );
    expect(rows[0].last_story_id).toBe(20);
    expect(rows[0].positions.map(Number)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});
