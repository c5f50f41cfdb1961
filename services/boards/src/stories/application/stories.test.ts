import { parseEvent, storyDeletedV1 } from '@flowboard/events';
import { makeCreateBoard } from '../../board/application/create-board';
import { newStoryCommand as command, fakeStore, rejection } from '../../testing/in-memory-store';
import { makeCreateStory } from './create-story';
import { makeDeleteStory } from './delete-story';
import { makeGetStory } from './get-story';
import { makeListStories } from './list-stories';
import { makeUpdateStories } from './update-stories';
import {
  applyChangesToStories,
  makeUpdateStory,
  type StoryChangeItem,
  type StoryChangeOutcome,
} from './update-story';

describe('CreateStory', () => {
  async function board() {
    const fake = fakeStore();
    const phases = await makeCreateBoard(fake.store)(1);
    return { ...fake, boardPhases: phases, createStory: makeCreateStory(fake.store) };
  }

  it('puts a story in the Backlog by default, planned, with its first milestone and step', async () => {
    const { createStory, boardPhases, milestones, steps } = await board();
    const story = await createStory(command());
    expect(story).toMatchObject({
      id: 1,
      status: 'planned',
      phase: { id: boardPhases[0]!.id, name: 'Backlog' },
    });
    expect(story).toMatchObject({
      color: 'grey',
      size: '',
      priority: '',
      ownerId: null,
      creatorId: 7,
      boardPosition: 1,
    });
    expect(milestones).toEqual([{ projectId: 1, storyId: 1, phaseId: boardPhases[0]!.id }]);
    expect(steps).toEqual([{ projectId: 1, storyId: 1, type: 'backlog' }]);
  });

  it('derives status and first step from the phase position', async () => {
    const { createStory, boardPhases, steps } = await board();
    const working = await createStory(command({ phaseId: boardPhases[2]!.id }));
    const archived = await createStory(command({ phaseId: boardPhases[4]!.id }));
    expect([working.status, archived.status]).toEqual(['started', 'finished']);
    expect(steps.map((s) => s.type)).toEqual(['working', 'archive']);
  });

  it('numbers stories per project and appends them to the bottom of their phase', async () => {
    const { createStory, store } = await board();
    await makeCreateBoard(store)(2);
    const a = await createStory(command());
    const b = await createStory(command());
    const other = await createStory(command({ projectId: 2 }));
    expect([a.id, b.id, other.id]).toEqual([1, 2, 1]);
    expect([a.boardPosition, b.boardPosition]).toEqual([1, 2]);
  });

  it('keeps the owner when one is given', async () => {
    const { createStory } = await board();
    expect((await createStory(command({ ownerId: 9 }))).ownerId).toBe(9);
  });

  it('is NotFound without a board', async () => {
    const { store } = fakeStore();
    expect((await rejection(makeCreateStory(store)(command({ projectId: 3 })))).kind).toBe('NotFound');
  });

  it("refuses another project's phase as an invalid reference", async () => {
    const { createStory, store } = await board();
    const foreign = await makeCreateBoard(store)(2);
    const error = await rejection(createStory(command({ phaseId: foreign[1]!.id })));
    expect(error.kind).toBe('InvalidArgument');
    expect(error.problem).toBe('invalid-reference');
  });

  it('validates fields before touching the store', async () => {
    const { createStory, stories } = await board();
    expect((await rejection(createStory(command({ text: '' })))).kind).toBe('InvalidArgument');
    expect((await rejection(createStory(command({ color: 'pink' })))).message).toMatch(/color/);
    expect(stories).toHaveLength(0);
  });
});

describe('GetStory', () => {
  it('finds a story, or is NotFound', async () => {
    const fake = fakeStore();
    await makeCreateBoard(fake.store)(1);
    await makeCreateStory(fake.store)(command());
    const getStory = makeGetStory(fake.store);
    expect((await getStory(1, 1)).id).toBe(1);
    expect((await rejection(getStory(1, 2))).message).toBe('Story not found');
    expect((await rejection(getStory(1, 0))).kind).toBe('NotFound');
  });
});

describe('UpdateStory', () => {
  async function story() {
    const fake = fakeStore();
    const phases = await makeCreateBoard(fake.store)(1);
    await makeCreateStory(fake.store)(command());
    return { ...fake, boardPhases: phases, updateStory: makeUpdateStory(fake.store) };
  }

  it('moves first, then sets the status, recording a milestone and steps', async () => {
    const { updateStory, boardPhases, milestones, steps } = await story();
    const updated = await updateStory({
      projectId: 1,
      actorId: 7,
      storyId: 1,
      phaseId: boardPhases[2]!.id,
      status: 'blocked',
      blockedReason: 'waiting',
      text: 'New text',
    });
    expect(updated).toMatchObject({
      status: 'blocked',
      blockedReason: 'waiting',
      text: 'New text',
      phase: { name: 'Working' },
    });
    expect(milestones.map((m) => m.phaseId)).toEqual([boardPhases[0]!.id, boardPhases[2]!.id]);
    expect(steps.map((s) => s.type)).toEqual(['backlog', 'blocked']);
  });

  it('a move to the current phase is a no-op; status in Backlog is refused', async () => {
    const { updateStory, boardPhases, milestones } = await story();
    await updateStory({ projectId: 1, actorId: 7, storyId: 1, phaseId: boardPhases[0]!.id });
    expect(milestones).toHaveLength(1);
    const error = await rejection(updateStory({ projectId: 1, actorId: 7, storyId: 1, status: 'started' }));
    expect(error.problem).toBe('invalid-state');
  });

  it('assigns, unassigns, clears the deadline; an unknown story is NotFound', async () => {
    const { updateStory } = await story();
    expect(
      (await updateStory({ projectId: 1, actorId: 7, storyId: 1, ownerId: 9, deadline: '2011-02-24' }))
        .ownerId,
    ).toBe(9);
    const cleared = await updateStory({ projectId: 1, actorId: 7, storyId: 1, ownerId: 0, deadline: '' });
    expect([cleared.ownerId, cleared.deadline]).toEqual([null, null]);
    expect((await rejection(updateStory({ projectId: 1, actorId: 7, storyId: 5, text: 'x' }))).kind).toBe(
      'NotFound',
    );
  });
});

describe('ListStories / DeleteStory', () => {
  it('checks paging and the filter before the store', async () => {
    const { store } = fakeStore();
    const list = makeListStories(store);
    const base = { projectId: 1, where: '', page: 1, pageSize: 100, users: [] };
    expect((await rejection(list({ ...base, page: 0 }))).problem).toBe('invalid-parameter');
    expect((await rejection(list({ ...base, pageSize: 1001 }))).problem).toBe('invalid-parameter');
    expect((await rejection(list({ ...base, where: 'colour:red' }))).message).toMatch(/colour/);
  });

  it('deletes once with a story-deleted event in the outbox, then NotFound', async () => {
    const fake = fakeStore();
    await makeCreateBoard(fake.store)(1);
    await makeCreateStory(fake.store)(command());
    let signals = 0;
    const del = makeDeleteStory(fake.store, () => signals++);
    await del({ projectId: 1, storyId: 1, deletedBy: 7, requestId: 'r1' });
    const storyDeleted = () => fake.outbox.filter((m) => m.topic === storyDeletedV1.topic);
    expect(storyDeleted()).toHaveLength(1);
    const message = storyDeleted()[0]!;
    expect(message).toMatchObject({
      topic: 'boards.story-deleted.v1',
      key: '1',
      headers: { 'x-request-id': 'r1' },
    });
    const event = parseEvent(storyDeletedV1, JSON.stringify(message.payload));
    expect(event.id).toBe(message.id);
    expect(event.data).toMatchObject({ projectId: 1, storyId: 1, deletedBy: 7 });
    expect(signals).toBe(1);
    const written = fake.outbox.length;
    expect((await rejection(del({ projectId: 1, storyId: 1, deletedBy: 7 }))).kind).toBe('NotFound');
    expect(fake.outbox).toHaveLength(written);
    expect(storyDeleted()).toHaveLength(1);
  });
});

describe('UpdateStories', () => {
  it('requires a where filter', async () => {
    const { store } = fakeStore();
    for (const where of ['', '   ']) {
      const err = await rejection(
        makeUpdateStories(store)({
          projectId: 1,
          actorId: 7,
          where,
          users: [],
          page: 1,
          pageSize: 100,
          color: 'red',
        }),
      );
      expect(err.kind).toBe('InvalidArgument');
      expect(err.problem).toBe('invalid-parameter');
    }
  });
});

describe('applyChangesToStories (the set-based update of many stories)', () => {
  async function board() {
    const fake = fakeStore();
    const phases = await makeCreateBoard(fake.store)(1);
    const createStory = makeCreateStory(fake.store);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createStory(command())).id);
    const apply = (items: StoryChangeItem[], allOrNothing: boolean) =>
      fake.store.transaction((tx) => applyChangesToStories(tx, 1, 7, items, { allOrNothing }));
    return { ...fake, boardPhases: phases, ids, apply };
  }
  const outcomeOf = (o: StoryChangeOutcome) =>
    'story' in o ? `${o.story.phase.name}/${o.story.status}` : 'error' in o ? o.error.kind : 'not applied';

  it("answers each story in the items' order: the story as updated, or its own error, and writes only the first", async () => {
    const { apply, ids, boardPhases, outbox, milestones } = await board();
    const [a, b, c] = ids as [number, number, number];
    const events = outbox.length;
    const outcomes = await apply(
      [
        { storyId: b, changes: { phaseId: boardPhases[2]!.id } },
        { storyId: a, changes: { color: 'red' }, expectedVersion: 5 },
        { storyId: 99, changes: { color: 'red' } },
        { storyId: c, changes: { status: 'ready' } },
      ],
      false,
    );
    expect(outcomes.map(outcomeOf)).toEqual([
      'Working/started',
      'PreconditionFailed',
      'NotFound',
      'InvalidArgument',
    ]);
    expect(outbox.length - events).toBe(1); // b's story.moved, nothing of the others
    expect(milestones.filter((m) => m.storyId === b).map((m) => m.phaseId)).toEqual([
      boardPhases[0]!.id,
      boardPhases[2]!.id,
    ]);
  });

  it('all or nothing: one story that breaks a rule keeps every other from being written', async () => {
    const { apply, ids, boardPhases, outbox, stories } = await board();
    const [a, b] = ids as [number, number];
    const events = outbox.length;
    const outcomes = await apply(
      [
        { storyId: a, changes: { phaseId: boardPhases[2]!.id } },
        { storyId: b, changes: { phaseId: 12345 } },
      ],
      true,
    );
    expect(outcomes.map(outcomeOf)).toEqual(['not applied', 'InvalidArgument']);
    expect(outbox.length).toBe(events);
    expect(stories.find((s) => s.id === a)!.phase.id).toBe(boardPhases[0]!.id);
  });
});
