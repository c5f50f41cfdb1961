import { makeCreateBoard } from '../../board/application/create-board';
import { makeCreateStory } from '../../stories/application/create-story';
import { toStoryMessage } from '../../stories/application/story-message';
import {
  newStoryCommand as command,
  fakeStore,
  resourceChanges as changes,
} from '../../testing/in-memory-store';
import { newStoryTasks } from './new-story-tasks';
import { toTaskMessage } from './task-message';

/** CreateStory with the tasks part, as app.ts wires it (stories sit below tasks, so the test lives here). */
async function board() {
  const fake = fakeStore();
  await makeCreateBoard(fake.store)(1);
  const signals = { count: 0 };
  const signal = () => void signals.count++;
  return { ...fake, signals, createStory: makeCreateStory(fake.store, signal, [newStoryTasks]) };
}

describe("a new story's tasks (use cases over the fake store)", () => {
  it('a create publishes story.created, then task.created per task, by the creator, about the story', async () => {
    const { createStory, outbox, tasks, signals } = await board();
    const story = await createStory(
      command({
        tasks: [
          { text: 'a', status: '' },
          { text: 'b', status: 'complete' },
        ],
      }),
    );
    expect(changes(outbox)).toEqual([
      {
        projectId: 1,
        actorId: 7,
        type: 'story.created',
        subject: 'story:1',
        resource: toStoryMessage(story),
      },
      ...tasks.map((t) => ({
        projectId: 1,
        actorId: 7,
        type: 'task.created',
        subject: 'story:1',
        resource: toTaskMessage(t),
      })),
    ]);
    expect(tasks).toHaveLength(2);
    expect(signals.count).toBe(1);
  });
});
