import { makeCreateBoard } from '../../board/application/create-board';
import {
  newStoryCommand as command,
  fakeStore,
  rejection,
  resourceChanges as changes,
} from '../../testing/in-memory-store';
import { makeCreateStory } from './create-story';
import { makeDeleteStory } from './delete-story';
import { makeUpdateStories } from './update-stories';
import { makeUpdateStory } from './update-story';
import { toStoryMessage } from './story-message';

async function board() {
  const fake = fakeStore();
  const phases = await makeCreateBoard(fake.store)(1);
  const signals = { count: 0 };
  const signal = () => void signals.count++;
  return {
    ...fake,
    boardPhases: phases,
    signals,
    createStory: makeCreateStory(fake.store, signal),
    updateStory: makeUpdateStory(fake.store, signal),
    updateStories: makeUpdateStories(fake.store, signal),
    deleteStory: makeDeleteStory(fake.store, signal),
  };
}

describe('story change events (use cases over the fake store)', () => {
  it('one update changing several things: updated, moved, blocked, each with the story after the change', async () => {
    const { createStory, updateStory, outbox, boardPhases } = await board();
    await createStory(command());
    const before = outbox.length;
    const updated = await updateStory({
      projectId: 1,
      storyId: 1,
      actorId: 9,
      text: 'New text',
      phaseId: boardPhases[2]!.id,
      status: 'blocked',
      blockedReason: 'waiting',
    });
    const published = changes(outbox.slice(before));
    expect(published.map((e) => e.type)).toEqual(['story.updated', 'story.moved', 'story.blocked']);
    for (const event of published) {
      expect(event).toMatchObject({ projectId: 1, actorId: 9, subject: 'story:1' });
      expect(event.resource).toEqual(toStoryMessage(updated));
    }
    expect(updated.version).toBe(2);
  });

  it('an update that changes nothing publishes nothing', async () => {
    const { createStory, updateStory, outbox, boardPhases } = await board();
    const story = await createStory(command({ ownerId: 5 }));
    const before = outbox.length;
    await updateStory({
      projectId: 1,
      storyId: 1,
      actorId: 7,
      text: story.text,
      ownerId: 5,
      phaseId: boardPhases[0]!.id,
    });
    expect(outbox.slice(before)).toEqual([]);
  });

  it('a refused update (stale version, invalid state) publishes nothing', async () => {
    const { createStory, updateStory, outbox } = await board();
    await createStory(command());
    const before = outbox.length;
    expect(
      (await rejection(updateStory({ projectId: 1, storyId: 1, actorId: 7, text: 'x', expectedVersion: 5 })))
        .kind,
    ).toBe('PreconditionFailed');
    expect(
      (await rejection(updateStory({ projectId: 1, storyId: 1, actorId: 7, status: 'started' }))).problem,
    ).toBe('invalid-state');
    expect(outbox.slice(before)).toEqual([]);
  });

  it('a bulk update publishes for each story it changed, and nothing for the others', async () => {
    const { createStory, updateStories, outbox } = await board();
    await createStory(command({ text: 'one', color: 'red' }));
    await createStory(command({ text: 'two' }));
    const before = outbox.length;
    const { stories } = await updateStories({
      projectId: 1,
      actorId: 8,
      where: 'not(color:red)',
      users: [],
      page: 1,
      pageSize: 100,
      color: 'red',
    });
    // The fake matches every story; the red one does not change.
    expect(changes(outbox.slice(before))).toEqual([
      {
        projectId: 1,
        actorId: 8,
        type: 'story.updated',
        subject: 'story:2',
        resource: toStoryMessage(stories.find((s) => s.id === 2)!),
      },
    ]);
  });

  it('a delete publishes story.deleted with the story as it was', async () => {
    const { createStory, updateStory, deleteStory, outbox, signals } = await board();
    await createStory(command());
    const last = await updateStory({ projectId: 1, storyId: 1, actorId: 7, size: 'L' });
    const before = outbox.length;
    await deleteStory({ projectId: 1, storyId: 1, deletedBy: 4 });
    expect(changes(outbox.slice(before))).toEqual([
      { projectId: 1, actorId: 4, type: 'story.deleted', subject: 'story:1', resource: toStoryMessage(last) },
    ]);
    expect(signals.count).toBe(3);
  });
});
