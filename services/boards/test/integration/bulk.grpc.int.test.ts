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

const bulkCreate = (project_id: number, stories: Partial<boards.CreateStoryRequest>[], atomic = false) =>
  call<boards.BulkStoriesResponse__Output>('BulkCreateStories', { project_id, stories, atomic });
const bulkUpdate = (project_id: number, stories: Partial<boards.BulkStoryUpdate>[], atomic = false) =>
  call<boards.BulkStoriesResponse__Output>('BulkUpdateStories', { project_id, stories, atomic });

async function board() {
  const projectId = newProjectId();
  await createBoard(projectId);
  const { phases } = await call<boards.ListPhasesResponse__Output>('ListPhases', { project_id: projectId });
  return { projectId, phases };
}

const count = async (sql: string, projectId: number) =>
  Number((await admin.query(`SELECT count(*) AS n FROM ${sql}`, [projectId])).rows[0].n);
const storiesOf = (projectId: number) => count('stories WHERE project_id = $1', projectId);
/** The project's change events of one type in the outbox (keyed by the project, as they are published). */
async function outboxEventsOf(projectId: number, type: string): Promise<number> {
  const { rows } = await admin.query(
    `SELECT count(*) AS n FROM outbox WHERE topic = 'flowboard.resource-changed.v1' AND key = $1
       AND payload->'data'->>'type' = $2`,
    [String(projectId), type],
  );
  return Number(rows[0].n);
}

describe('BulkCreateStories', () => {
  it('makes every story as CreateStory would, numbered in request order, in one transaction', async () => {
    const { projectId, phases } = await board();
    const res = await bulkCreate(projectId, [
      { text: 'one' },
      { text: 'two', phase_id: phases[1]!.id, color: 'red', tasks: [{ text: 'a task', status: '' }] },
      { text: 'three', tags: [{ id: 0, name: 'bulk-tag' }] },
    ]);
    expect(res.outcomes.map((o) => [o.story?.id, o.story?.text, o.error_kind])).toEqual([
      [1, 'one', ''],
      [2, 'two', ''],
      [3, 'three', ''],
    ]);
    expect(res.outcomes[1]!.story).toMatchObject({
      phase: { id: phases[1]!.id },
      color: 'red',
      status: 'started',
    });
    expect(await count('tasks WHERE project_id = $1', projectId)).toBe(1);
    expect(await count('story_tags WHERE project_id = $1', projectId)).toBe(1);
    // One story.created each, as three single creates would write.
    expect(await outboxEventsOf(projectId, 'story.created')).toBe(3);
  });

  it('without atomic: a story that fails is its own outcome, the others are made, and it leaves nothing behind', async () => {
    const { projectId } = await board();
    await createStory({ project_id: projectId, text: 'before' }); // story 1
    const res = await bulkCreate(projectId, [
      { text: 'ok one' },
      { text: 'bad color', color: 'mauve' }, // refused before any I/O
      // Refused after its new tag was written: the savepoint takes the tag and the story number back.
      {
        text: 'bad tag',
        tags: [
          { id: 0, name: 'ghost-tag' },
          { id: 999_999_999, name: '' },
        ],
      },
      { text: 'ok two' },
    ]);
    expect(res.outcomes.map((o) => o.story?.id ?? o.problem)).toEqual([
      2,
      'invalid-field',
      'invalid-reference',
      3,
    ]);
    expect(res.outcomes[1]!.message).toMatch(/color/i);
    expect(await storiesOf(projectId)).toBe(3);
    expect(await count(`tags WHERE project_id = $1 AND name = 'ghost-tag'`, projectId)).toBe(0);
    // No number was used by the story that failed.
    expect((await createStory({ project_id: projectId, text: 'after' })).id).toBe(4);
  });

  it('atomic: one failure makes none, and says which story failed', async () => {
    const { projectId } = await board();
    const res = await bulkCreate(
      projectId,
      [
        { text: 'fine' },
        { text: 'unknown tag', tags: [{ id: 999_999_999, name: '' }] },
        { text: 'fine too' },
      ],
      true,
    );
    expect(res.outcomes.map((o) => [o.not_applied, o.failed_index, o.error_kind])).toEqual([
      [true, 1, ''],
      [false, 0, 'InvalidArgument'],
      [true, 1, ''],
    ]);
    expect(await storiesOf(projectId)).toBe(0);
    expect(await outboxEventsOf(projectId, 'story.created')).toBe(0);
    expect((await createStory({ project_id: projectId, text: 'first for real' })).id).toBe(1);
  });

  it('atomic: a story refused before any I/O stops the others too', async () => {
    const { projectId } = await board();
    const res = await bulkCreate(projectId, [{ text: '' }, { text: 'fine' }], true);
    expect(res.outcomes.map((o) => o.error_kind || `not applied (${o.failed_index})`)).toEqual([
      'InvalidArgument',
      'not applied (0)',
    ]);
    expect(await storiesOf(projectId)).toBe(0);
  });

  it.each([
    [0, /one story at least/],
    [101, /at most 100/],
  ])('refuses %d stories with INVALID_ARGUMENT', async (n, message) => {
    const { projectId } = await board();
    const err = await grpcError(
      bulkCreate(
        projectId,
        Array.from({ length: n }, (_, i) => ({ text: `s${i}` })),
      ),
    );
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(reason(err)).toBe('invalid-field');
    expect(err.details).toMatch(message);
  });

  it('takes 100 stories in one request', async () => {
    const { projectId } = await board();
    const res = await bulkCreate(
      projectId,
      Array.from({ length: 100 }, (_, i) => ({ text: `story ${i}` })),
    );
    expect(res.outcomes.every((o) => o.story)).toBe(true);
    expect(await storiesOf(projectId)).toBe(100);
  });

  it('answers NOT_FOUND for a project without a board', async () => {
    const err = await grpcError(bulkCreate(newProjectId(), [{ text: 'x' }]));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
  });
});

describe('BulkUpdateStories', () => {
  async function seeded() {
    const b = await board();
    const ids: number[] = [];
    for (const text of ['a', 'b', 'c'])
      ids.push((await createStory({ project_id: b.projectId, text, details: `details of ${text}` })).id);
    return { ...b, ids };
  }
  const update = (story_id: number, fields: Partial<boards.UpdateStoryRequest>) => ({
    update: {
      story_id,
      update_mask: Object.keys(fields).map((k) => (k === 'phase_id' ? 'phase' : k)),
      ...fields,
    },
  });

  it("changes only each story's fields sent, and sets tags when asked", async () => {
    const { projectId, phases, ids } = await seeded();
    const res = await bulkUpdate(projectId, [
      update(ids[0]!, { phase_id: phases[2]!.id, color: 'red' }),
      { ...update(ids[1]!, { size: '5' }), set_tags: true, tags: [{ id: 0, name: 'urgent' }] },
    ]);
    expect(res.outcomes.map((o) => o.error_kind)).toEqual(['', '']);
    expect(res.outcomes[0]!.story).toMatchObject({
      phase: { id: phases[2]!.id },
      color: 'red',
      details: 'details of a',
    });
    expect(res.outcomes[1]!.story).toMatchObject({ size: '5', color: 'grey', details: 'details of b' });
    const tags = await call<boards.StoryTagsResponse__Output>('ListStoryTags', {
      project_id: projectId,
      story_id: ids[1],
      page: 1,
      page_size: 10,
    });
    expect(tags.tags.map((t) => t.name)).toEqual(['urgent']);
    expect(await outboxEventsOf(projectId, 'story.moved')).toBe(1);
  });

  it('checks each story’s expected version; a stale one fails alone', async () => {
    const { projectId, ids } = await seeded();
    const current = await call<boards.GetStoryResponse__Output>('GetStory', {
      project_id: projectId,
      story_id: ids[0],
    });
    const version = current.story!.version;
    const res = await bulkUpdate(projectId, [
      update(ids[0]!, { color: 'blue', expected_version: version } as never),
      update(ids[1]!, { color: 'blue', expected_version: version + 7 } as never),
      update(999, { color: 'blue' }),
    ]);
    expect(res.outcomes.map((o) => o.error_kind || o.story?.color)).toEqual([
      'blue',
      'PreconditionFailed',
      'NotFound',
    ]);
    expect(res.outcomes[1]!.problem).toBe('precondition-failed');
  });

  it('atomic: a stale version changes nothing', async () => {
    const { projectId, ids } = await seeded();
    const res = await bulkUpdate(
      projectId,
      [
        update(ids[0]!, { color: 'green' }),
        update(ids[1]!, { color: 'green', expected_version: 99 } as never),
      ],
      true,
    );
    expect(res.outcomes.map((o) => o.error_kind || `not applied (${o.failed_index})`)).toEqual([
      'not applied (1)',
      'PreconditionFailed',
    ]);
    const a = await call<boards.GetStoryResponse__Output>('GetStory', {
      project_id: projectId,
      story_id: ids[0],
    });
    expect(a.story!.color).toBe('grey');
  });

  it('without tags, writes the stories set-based: each lands at the bottom of its phase in request order, with its history and events in order', async () => {
    const { projectId, phases } = await board();
    const [backlog, todo, doing] = [phases[0]!.id, phases[1]!.id, phases[2]!.id];
    const already = (await createStory({ project_id: projectId, text: 'already there', phase_id: doing })).id;
    const ids: number[] = [];
    for (const text of ['s1', 's2', 's3', 's4', 's5', 's6'])
      ids.push((await createStory({ project_id: projectId, text })).id);
    const [s1, s2, s3, s4, s5, s6] = ids as [number, number, number, number, number, number];
    const before = await admin.query('SELECT max(seq) AS seq FROM outbox');

    const res = await bulkUpdate(projectId, [
      update(s1, { phase_id: doing }),
      update(s2, { phase_id: todo }),
      update(s3, { phase_id: doing }),
      update(s4, { phase_id: todo, status: 'blocked', blocked_reason: 'waiting' }),
      update(s5, { color: 'red' }),
      update(s6, { phase_id: 987654321 }),
    ]);
    expect(res.outcomes.map((o) => o.error_kind || `${o.story!.phase!.id}/${o.story!.status}`)).toEqual([
      `${doing}/started`,
      `${todo}/started`,
      `${doing}/started`,
      `${todo}/blocked`,
      `${backlog}/planned`,
      'InvalidArgument',
    ]);
    expect(res.outcomes[5]!.problem).toBe('invalid-reference');

    const inPhase = async (phaseId: number) =>
      (
        await admin.query(
          'SELECT id FROM stories WHERE project_id = $1 AND phase_id = $2 ORDER BY board_position',
          [projectId, phaseId],
        )
      ).rows.map((r) => Number(r.id));
    expect(await inPhase(doing)).toEqual([already, s1, s3]);
    expect(await inPhase(todo)).toEqual([s2, s4]);
    expect(await inPhase(backlog)).toEqual([s5, s6]);

    // Each moved story: its backlog milestone closed where the new one starts, one open milestone, in the new phase.
    const milestones = await admin.query(
      `SELECT story_id, phase_id, start_time, end_time FROM story_milestones
       WHERE project_id = $1 ORDER BY story_id, start_time, end_time NULLS LAST`,
      [projectId],
    );
    for (const [id, phase] of [
      [s1, doing],
      [s2, todo],
      [s3, doing],
      [s4, todo],
    ] as const) {
      const rows = milestones.rows.filter((r) => Number(r.story_id) === id);
      expect(rows.map((r) => Number(r.phase_id))).toEqual([backlog, phase]);
      expect(rows[0].end_time).toEqual(rows[1].start_time);
      expect(rows[1].end_time).toBeNull();
    }
    for (const id of [s5, s6])
      expect(milestones.rows.filter((r) => Number(r.story_id) === id).map((r) => r.end_time)).toEqual([null]);
    const steps = await admin.query(
      `SELECT story_id, type FROM story_steps WHERE project_id = $1 AND end_time IS NULL ORDER BY story_id`,
      [projectId],
    );
    const openStep = new Map(steps.rows.map((r) => [Number(r.story_id), r.type as string]));
    expect([s1, s4, s5, s6].map((id) => openStep.get(id))).toEqual([
      'working',
      'blocked',
      'backlog',
      'backlog',
    ]);

    const events = await admin.query(
      `SELECT payload->'data'->>'type' AS type, payload->'data'->>'subject' AS subject FROM outbox
       WHERE key = $1 AND seq > $2 ORDER BY seq`,
      [String(projectId), before.rows[0].seq ?? 0],
    );
    expect(events.rows.map((r) => `${r.subject} ${r.type}`)).toEqual([
      `story:${s1} story.moved`,
      `story:${s2} story.moved`,
      `story:${s3} story.moved`,
      `story:${s4} story.moved`,
      `story:${s4} story.blocked`,
      `story:${s5} story.updated`,
    ]);
  });

  it('refuses a story named twice', async () => {
    const { projectId, ids } = await seeded();
    const err = await grpcError(
      bulkUpdate(projectId, [update(ids[0]!, { color: 'red' }), update(ids[0]!, { size: '1' })]),
    );
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toContain('named twice');
  });
});
