import * as grpc from '@grpc/grpc-js';
import type { boards } from '@flowboard/proto';
import { admin, boardsApp, call, createBoard, createStory, newProjectId, useBoardsService } from './harness';

useBoardsService();

/**
 * The writes waiting for one board share a transaction (src/db/board-write-batches.ts). What must hold as if each
 * ran alone: ids without gaps, each story at its own position, each write all or nothing with its own answer.
 */

/** flowboard_board_write_batch_size from the service's /metrics: transactions, and the writes they ran. */
async function batches(): Promise<{ transactions: number; writes: number }> {
  const text = await (await fetch(`http://127.0.0.1:${boardsApp().metricsPort()}/metrics`)).text();
  const value = (name: string) =>
    Number(text.match(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm'))?.[1] ?? 0);
  return {
    transactions: value('flowboard_board_write_batch_size_count'),
    writes: value('flowboard_board_write_batch_size_sum'),
  };
}

/** Each call's answer or gRPC status name, in the order the calls were made (all made at once). */
const settle = <T>(calls: Array<Promise<T>>) =>
  Promise.all(
    calls.map((c) =>
      c.then(
        (value) => ({ value }),
        (e: grpc.ServiceError) => ({ error: e }),
      ),
    ),
  );

async function positions(projectId: number): Promise<Array<{ id: number; position: number }>> {
  const { rows } = await admin.query<{ id: string; board_position: string }>(
    'SELECT id, board_position FROM stories WHERE project_id = $1 ORDER BY id',
    [projectId],
  );
  return rows.map((r) => ({ id: Number(r.id), position: Number(r.board_position) }));
}

describe("a board's concurrent writes, gathered into shared transactions", () => {
  it('numbers 40 concurrent creates 1..40, each below the one before, in fewer than 40 transactions', async () => {
    const projectId = newProjectId();
    await createBoard(projectId);
    const before = await batches();

    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) => createStory({ project_id: projectId, text: `story ${i}` })),
    );
    const after = await batches();

    expect(created.map((s) => Number(s.id)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    // Numbered in the order they were placed: each story lands below the one numbered before it.
    const placed = await positions(projectId);
    expect(placed.map((s) => s.position)).toEqual([...placed.map((s) => s.position)].sort((a, b) => a - b));
    expect(new Set(placed.map((s) => s.position)).size).toBe(40);
    expect(after.writes - before.writes).toBe(40);
    expect(after.transactions - before.transactions).toBeLessThan(40);
    // Each write's history was written with it: one open milestone and one open step per story.
    const { rows } = await admin.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM story_milestones WHERE project_id = $1 AND end_time IS NULL)
            + (SELECT count(*) FROM story_steps WHERE project_id = $1 AND end_time IS NULL) AS n`,
      [projectId],
    );
    expect(Number(rows[0]!.n)).toBe(80);
  });

  it('answers a write that fails before writing (a stale version) with its error; the others commit together', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    const stories = [];
    for (let i = 0; i < 24; i++) stories.push(await createStory({ project_id: projectId }));
    const before = await batches();

    // Every other move names a version the story is not at.
    const outcomes = await settle(
      stories.map((story, i) =>
        call<boards.UpdateStoryResponse__Output>('UpdateStory', {
          project_id: projectId,
          story_id: story.id,
          update_mask: ['phase'],
          phase_id: phases[1]!.id,
          expected_version: i % 2 === 0 ? Number(story.version) : Number(story.version) + 5,
        }),
      ),
    );
    const after = await batches();

    outcomes.forEach((outcome, i) => {
      if (i % 2 === 0) expect(outcome).toMatchObject({ value: { story: { phase: { id: phases[1]!.id } } } });
      else expect(outcome).toMatchObject({ error: { code: grpc.status.FAILED_PRECONDITION } });
    });
    // No transaction was rolled back and run again: 24 writes in all, in fewer than 24 transactions.
    expect(after.writes - before.writes).toBe(24);
    expect(after.transactions - before.transactions).toBeLessThan(24);
    const { rows } = await admin.query<{ id: string; phase_id: string }>(
      'SELECT id, phase_id FROM stories WHERE project_id = $1 ORDER BY id',
      [projectId],
    );
    expect(rows.map((r) => Number(r.phase_id))).toEqual(
      stories.map((_, i) => Number(i % 2 === 0 ? phases[1]!.id : phases[0]!.id)),
    );
  });

  it('runs each write alone again when one fails after writing: the failed creates take no id', async () => {
    const projectId = newProjectId();
    await createBoard(projectId);
    const before = await batches();

    // Every third create names a phase the board does not have: it fails after taking the board's next id.
    const outcomes = await settle(
      Array.from({ length: 30 }, (_, i) =>
        createStory({ project_id: projectId, text: `story ${i}`, phase_id: i % 3 === 2 ? 999_999_999 : 0 }),
      ),
    );
    const after = await batches();

    outcomes.forEach((outcome, i) => {
      if (i % 3 === 2) expect(outcome).toMatchObject({ error: { code: grpc.status.INVALID_ARGUMENT } });
      else expect(outcome).toHaveProperty('value');
    });
    const ids = outcomes.flatMap((o) => ('value' in o ? [Number(o.value.id)] : []));
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await positions(projectId)).map((s) => s.id)).toEqual(ids);
    // A shared transaction was rolled back and its writes ran again, alone: more runs than the 30 writes.
    expect(after.writes - before.writes).toBeGreaterThan(30);
  });

  it("writes each gathered write's events with its own request id, not that of the write it shared a transaction with", async () => {
    const projectId = newProjectId();
    await createBoard(projectId);

    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call('CreateStory', { project_id: projectId, text: `story ${i}` }, 42, `create-${i}`),
      ),
    );

    const { rows } = await admin.query<{ text: string; request_id: string }>(
      `SELECT payload->'data'->'resource'->>'text' AS text, headers->>'x-request-id' AS request_id
       FROM outbox WHERE key = $1 AND payload->'data'->>'type' = 'story.created'`,
      [String(projectId)],
    );
    expect(rows).toHaveLength(20);
    for (const row of rows) expect(row.request_id).toBe(row.text.replace('story ', 'create-'));
  });

  it("starts no write whose caller's deadline passed while it queued behind the board's lock", async () => {
    const projectId = newProjectId();
    await createBoard(projectId);
    const story = await createStory({ project_id: projectId, text: 'queued' });
    const holder = await admin.connect();
    try {
      // Another transaction holds the board's row: the first write waits for it in PostgreSQL, the second in the
      // board's queue, with a deadline that passes before the lock is free.
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM boards WHERE project_id = $1 FOR UPDATE', [projectId]);
      const first = call('UpdateStory', {
        project_id: projectId,
        story_id: story.id,
        update_mask: ['size'],
        size: '3',
      });
      await new Promise((r) => setTimeout(r, 50));
      const second = call(
        'UpdateStory',
        { project_id: projectId, story_id: story.id, update_mask: ['color'], color: 'red' },
        42,
        'gone-before-its-turn',
        undefined,
        300,
      );
      const [late] = await settle([second]);
      expect((late as { error: grpc.ServiceError }).error.code).toBe(grpc.status.DEADLINE_EXCEEDED);
      await holder.query('COMMIT');
      await first;
    } finally {
      holder.release();
    }
    await new Promise((r) => setTimeout(r, 100));
    const { rows } = await admin.query('SELECT size, color FROM stories WHERE project_id = $1 AND id = $2', [
      projectId,
      story.id,
    ]);
    expect(rows[0]).toEqual({ size: '3', color: 'grey' });
  });
  it('answers a move PostgreSQL ended to break a deadlock by running it again', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    const story = await createStory({ project_id: projectId });
    const other = await admin.connect();
    try {
      // Another transaction holds the story's row; the move takes the board's row, then waits for the story's.
      await other.query('BEGIN');
      await other.query('UPDATE stories SET text = text WHERE project_id = $1 AND id = $2', [
        projectId,
        story.id,
      ]);
      const move = call<boards.UpdateStoryResponse__Output>('UpdateStory', {
        project_id: projectId,
        story_id: story.id,
        update_mask: ['phase'],
        phase_id: phases[2]!.id,
      });
      for (let i = 0; i < 250 && !(await moveWaits()); i++) await new Promise((r) => setTimeout(r, 20));
      expect(await moveWaits()).toBe(true);
      // Now the other wants the board's row: a cycle. The move waited first, so its deadlock check runs first and
      // PostgreSQL ends its transaction, which is the only way the other can get the board's row while it lives.
      await other.query('SELECT 1 FROM boards WHERE project_id = $1 FOR UPDATE', [projectId]);
      await other.query('COMMIT');

      const moved = await move;

      expect(Number(moved.story!.phase!.id)).toBe(Number(phases[2]!.id));
      const { rows } = await admin.query<{ phase_id: string }>(
        'SELECT phase_id FROM stories WHERE project_id = $1 AND id = $2',
        [projectId, story.id],
      );
      expect(Number(rows[0]!.phase_id)).toBe(Number(phases[2]!.id));
    } finally {
      await other.query('ROLLBACK').catch(() => undefined);
      other.release();
    }
  });
});

/** Whether one of the service's connections waits for a lock (the move, for the story's row). */
async function moveWaits(): Promise<boolean> {
  const { rows } = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND application_name = 'boards' AND wait_event_type = 'Lock'`,
  );
  return rows[0]!.n > 0;
}
