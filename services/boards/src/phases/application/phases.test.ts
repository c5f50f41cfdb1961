import { fakeStore, rejection, resourceChanges } from '../../testing/in-memory-store';
import { makeBatchListPhases } from './batch-list-phases';
import { makeCreateBoard } from '../../board/application/create-board';
import { makeCreatePhase } from './create-phase';
import { makeDeletePhase } from './delete-phase';
import { makeListPhases } from './list-phases';
import { makeReorderPhases } from './reorder-phases';
import { makeUpdatePhase } from './update-phase';

describe('CreateBoard', () => {
  it('creates the five default phases once and returns them by position', async () => {
    const { store, phases } = fakeStore();
    const createBoard = makeCreateBoard(store);
    const first = await createBoard(1);
    const second = await createBoard(1);
    expect(first.map((p) => [p.name, p.position])).toEqual([
      ['Backlog', 0],
      ['Ready', 1],
      ['Working', 2],
      ['Complete', 3],
      ['Archive', 4],
    ]);
    expect(second).toEqual(first);
    expect(phases).toHaveLength(5);
  });

  it('refuses a non-positive project id', async () => {
    const { store } = fakeStore();
    expect((await rejection(makeCreateBoard(store)(0))).kind).toBe('InvalidArgument');
  });
});

describe('ListPhases', () => {
  it('is NotFound without a board', async () => {
    const { store } = fakeStore();
    expect((await rejection(makeListPhases(store)(5))).kind).toBe('NotFound');
  });
});

describe('BatchListPhases', () => {
  it('answers every project asked for, in that order, once; no board → no phases', async () => {
    const { store } = fakeStore();
    await makeCreateBoard(store)(1);
    await makeCreateBoard(store)(3);
    const result = await makeBatchListPhases(store)([3, 2, 1, 3]);
    expect([...result.keys()]).toEqual([3, 2, 1]);
    expect(result.get(2)).toEqual([]);
    expect(result.get(1)?.map((p) => p.name)).toEqual(['Backlog', 'Ready', 'Working', 'Complete', 'Archive']);
    expect(result.get(3)?.every((p) => p.projectId === 3)).toBe(true);
  });

  it('refuses a non-positive id and more than 1000 projects', async () => {
    const { store } = fakeStore();
    expect((await rejection(makeBatchListPhases(store)([1, 0]))).kind).toBe('InvalidArgument');
    const many = Array.from({ length: 1001 }, (_, i) => i + 1);
    expect((await rejection(makeBatchListPhases(store)(many))).kind).toBe('InvalidArgument');
  });
});

describe('phases', () => {
  async function board() {
    const fake = fakeStore();
    await makeCreateBoard(fake.store)(1);
    const order = () =>
      fake.phases
        .filter((p) => p.projectId === 1)
        .sort((a, b) => a.position - b.position)
        .map((p) => `${p.name}@${p.position}`);
    return { ...fake, order };
  }

  it('CreatePhase defaults to just before Archive, and an explicit index shifts the rest', async () => {
    const { store, order } = await board();
    const created = await makeCreatePhase(store)({
      projectId: 1,
      name: 'Review',
      description: '',
      limit: 0,
      actorId: 7,
    });
    expect(created.position).toBe(4);
    await makeCreatePhase(store)({
      projectId: 1,
      name: 'Triage',
      description: '',
      index: 1,
      limit: 2,
      actorId: 7,
    });
    expect(order()).toEqual([
      'Backlog@0',
      'Triage@1',
      'Ready@2',
      'Working@3',
      'Complete@4',
      'Review@5',
      'Archive@6',
    ]);
    const bad = await rejection(
      makeCreatePhase(store)({ projectId: 1, name: 'X', description: '', index: 0, limit: 0, actorId: 7 }),
    );
    expect(bad.kind).toBe('InvalidArgument');
  });

  it('UpdatePhase moves a middle phase and refuses to move Backlog or Archive', async () => {
    const { store, phases, order } = await board();
    const ready = phases.find((p) => p.name === 'Ready')!;
    await makeUpdatePhase(store)({ projectId: 1, phaseId: ready.id, index: 3, limit: 4, actorId: 7 });
    expect(order()).toEqual(['Backlog@0', 'Working@1', 'Complete@2', 'Ready@3', 'Archive@4']);
    expect(ready.wipLimit).toBe(4);
    const backlog = phases.find((p) => p.name === 'Backlog')!;
    expect(
      (await rejection(makeUpdatePhase(store)({ projectId: 1, phaseId: backlog.id, index: 1, actorId: 7 })))
        .kind,
    ).toBe('InvalidArgument');
    await makeUpdatePhase(store)({ projectId: 1, phaseId: backlog.id, name: 'Icebox', actorId: 7 });
    expect(order()[0]).toBe('Icebox@0');
  });

  it('DeletePhase: Backlog/Archive → 400, a phase with stories → 409, else closes the gap', async () => {
    const { store, phases, order } = await board();
    const byName = (n: string) => phases.find((p) => p.name === n)!;
    const deletePhase = makeDeletePhase(store);
    const del = (projectId: number, phaseId: number) => deletePhase({ projectId, phaseId, actorId: 7 });
    expect((await rejection(del(1, byName('Archive').id))).kind).toBe('InvalidArgument');
    // Stories sit above phases: a story is put in the phase through the fake store, not CreateStory.
    await store.stories.insert({
      projectId: 1,
      id: 1,
      text: 'Build Spec house',
      details: '',
      size: '',
      priority: '',
      color: 'grey',
      status: 'started',
      phaseId: byName('Working').id,
      creatorId: 7,
      ownerId: null,
      deadline: null,
    });
    expect((await rejection(del(1, byName('Working').id))).kind).toBe('Conflict');
    await del(1, byName('Ready').id);
    expect(order()).toEqual(['Backlog@0', 'Working@1', 'Complete@2', 'Archive@3']);
  });

  it('ReorderPhases validates before writing', async () => {
    const { store, phases, order } = await board();
    const ids = [...phases].sort((a, b) => a.position - b.position).map((p) => p.id);
    expect((await rejection(makeReorderPhases(store)(1, ids.slice(1), 7))).kind).toBe('InvalidArgument');
    await makeReorderPhases(store)(1, [ids[0]!, ids[3]!, ids[2]!, ids[1]!, ids[4]!], 7);
    expect(order()).toEqual(['Backlog@0', 'Complete@1', 'Working@2', 'Ready@3', 'Archive@4']);
  });
});

describe('phase events', () => {
  /** The `phase.*` events written so far, as `type name@index` (subject and actor checked on the way). */
  async function board() {
    const fake = fakeStore();
    await makeCreateBoard(fake.store)(1);
    const events = () =>
      resourceChanges(fake.outbox).map((e) => {
        const phase = e.resource as { id: number; name: string; index: number };
        expect([e.projectId, e.actorId, e.subject]).toEqual([1, 7, `phase:${phase.id}`]);
        return `${e.type} ${phase.name}@${phase.index}`;
      });
    const byName = (n: string) => fake.phases.find((p) => p.name === n)!;
    return { ...fake, events, byName };
  }

  it('a new phase: phase.created, then phase.updated for each phase it shifted', async () => {
    const { store, events } = await board();
    await makeCreatePhase(store)({
      projectId: 1,
      name: 'Triage',
      description: '',
      index: 2,
      limit: 0,
      actorId: 7,
    });
    expect(events()).toEqual([
      'phase.created Triage@2',
      'phase.updated Working@3',
      'phase.updated Complete@4',
      'phase.updated Archive@5',
    ]);
  });

  it('an update that moves nothing: phase.updated for it alone; a move: also for those in between', async () => {
    const { store, events, byName } = await board();
    const update = makeUpdatePhase(store);
    await update({ projectId: 1, phaseId: byName('Ready').id, name: 'Next', actorId: 7 });
    await update({ projectId: 1, phaseId: byName('Next').id, index: 3, actorId: 7 });
    expect(events()).toEqual([
      'phase.updated Next@1',
      'phase.updated Next@3',
      'phase.updated Working@1',
      'phase.updated Complete@2',
    ]);
  });

  it('a deletion: phase.deleted (the phase as it was), then the phases after it', async () => {
    const { store, events, byName } = await board();
    await makeDeletePhase(store)({ projectId: 1, phaseId: byName('Working').id, actorId: 7 });
    expect(events()).toEqual([
      'phase.deleted Working@2',
      'phase.updated Complete@2',
      'phase.updated Archive@3',
    ]);
  });

  it('a reorder: phase.updated for each phase that moved, in board order; a refused one writes none', async () => {
    const { store, phases, events } = await board();
    const ids = [...phases].sort((a, b) => a.position - b.position).map((p) => p.id);
    await rejection(makeReorderPhases(store)(1, ids.slice(1), 7));
    await makeReorderPhases(store)(1, [ids[0]!, ids[2]!, ids[1]!, ids[3]!, ids[4]!], 7);
    expect(events()).toEqual(['phase.updated Working@1', 'phase.updated Ready@2']);
  });
});
