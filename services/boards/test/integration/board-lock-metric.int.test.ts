import { boardsApp, call, createBoard, createStory, newProjectId, useBoardsService } from './harness';

useBoardsService();

/** flowboard_board_lock_held_seconds from the service's /metrics: how many holds, and their total. */
async function lockHeld(): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(`http://127.0.0.1:${boardsApp().metricsPort()}/metrics`)).text();
  // The registry labels every series with its service: `name{service="boards"} value`.
  const value = (name: string) =>
    Number(text.match(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm'))?.[1]);
  return {
    count: value('flowboard_board_lock_held_seconds_count'),
    sum: value('flowboard_board_lock_held_seconds_sum'),
  };
}

describe('flowboard_board_lock_held_seconds', () => {
  it('observes each write that took its board lock, from the lock to the end of its transaction; reads take none', async () => {
    const projectId = newProjectId();
    const phases = await createBoard(projectId);
    const before = await lockHeld();

    const story = await createStory({ project_id: projectId });
    await call('UpdateStory', { project_id: projectId, story_id: story.id, phase_id: phases[1]!.id });
    await call('GetStory', { project_id: projectId, story_id: story.id });
    const after = await lockHeld();

    expect(after.count - before.count).toBe(2);
    // Two transactions of a few statements each on a local database: held, but well under a second in all.
    expect(after.sum - before.sum).toBeGreaterThan(0);
    expect(after.sum - before.sum).toBeLessThan(1);
  });

  it('observes a write that fails after taking the lock (it is held until the rollback)', async () => {
    const projectId = newProjectId();
    await createBoard(projectId);
    const before = await lockHeld();

    await expect(createStory({ project_id: projectId, phase_id: 999_999_999 })).rejects.toThrow(
      /Invalid phase/,
    );
    const after = await lockHeld();

    expect(after.count - before.count).toBe(1);
  });
});
