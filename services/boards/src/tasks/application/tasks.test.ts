import { makeCreateBoard } from '../../board/application/create-board';
import { makeCreateStory } from '../../stories/application/create-story';
import { noSignal } from '../../shared/application/resource-events';
import { newStoryCommand as command, fakeStore, rejection } from '../../testing/in-memory-store';
import { makeCreateTask } from './create-task';
import { newStoryTasks } from './new-story-tasks';
import { makeReorderTasks } from './reorder-tasks';
import { makeUpdateTask } from './update-task';

describe('Tasks', () => {
  async function storyWithBoard() {
    const fake = fakeStore();
    await makeCreateBoard(fake.store)(1);
    const story = await makeCreateStory(fake.store, noSignal, [newStoryTasks])(
      command({
        projectId: 1,
        tasks: [
          { text: 'a', status: '' },
          { text: 'b', status: 'complete' },
        ],
      }),
    );
    return { ...fake, story };
  }

  it('creates a story with its tasks in order; a complete one is finished by the creator', async () => {
    const { tasks, story } = await storyWithBoard();
    expect(tasks.map((t) => [t.text, t.status, t.position, t.finishedBy])).toEqual([
      ['a', 'incomplete', 1, null],
      ['b', 'complete', 2, story.creatorId],
    ]);
    expect(tasks[1]!.finishedAt).toBeInstanceOf(Date);
  });

  it('completing sets the finisher to the caller; reopening clears it', async () => {
    const { store, story } = await storyWithBoard();
    const task = await makeCreateTask(store)({
      projectId: 1,
      storyId: story.id,
      text: 'c',
      status: '',
      callerId: 9,
    });
    expect(task.position).toBe(3);
    const update = makeUpdateTask(store);
    const done = await update({
      projectId: 1,
      storyId: story.id,
      taskId: task.id,
      status: 'complete',
      callerId: 9,
    });
    expect([done.status, done.finishedBy, done.finishedAt instanceof Date]).toEqual(['complete', 9, true]);
    const open = await update({
      projectId: 1,
      storyId: story.id,
      taskId: task.id,
      status: 'incomplete',
      callerId: 8,
    });
    expect([open.status, open.finishedBy, open.finishedAt]).toEqual(['incomplete', null, null]);
    const renamed = await update({
      projectId: 1,
      storyId: story.id,
      taskId: task.id,
      text: 'd',
      callerId: 8,
    });
    expect([renamed.text, renamed.status]).toEqual(['d', 'incomplete']);
  });

  it('a task of a missing story or a missing task is NotFound', async () => {
    const { store, story } = await storyWithBoard();
    const update = makeUpdateTask(store);
    expect((await rejection(update({ projectId: 1, storyId: 99, taskId: 1, callerId: 9 }))).kind).toBe(
      'NotFound',
    );
    expect(
      (await rejection(update({ projectId: 1, storyId: story.id, taskId: 4242, callerId: 9 }))).kind,
    ).toBe('NotFound');
  });

  it('a reorder must list every task exactly once', async () => {
    const { store, story, tasks } = await storyWithBoard();
    const reorder = makeReorderTasks(store);
    const [a, b] = tasks.map((t) => t.id) as [number, number];
    const ok = await reorder({ projectId: 1, storyId: story.id, taskIds: [b, a], page: 1, pageSize: 100 });
    expect(ok.tasks.map((t) => t.id)).toEqual([b, a]);
    const bad = await rejection(
      reorder({ projectId: 1, storyId: story.id, taskIds: [b], page: 1, pageSize: 100 }),
    );
    expect(bad.kind).toBe('InvalidArgument');
  });
});
