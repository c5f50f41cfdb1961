import { parseEvent, storyDeletedV1 } from '@flowboard/events';
import { DomainError } from '@flowboard/service-kit';
import { makeCreateBoard } from './create-board';
import { makeCreateStory, type CreateStoryCommand } from './create-story';
import { makeGetStory } from './get-story';
import { makeDeleteStory } from './delete-story';
import { makeListPhases } from './list-phases';
import { makeBatchListPhases } from './batch-list-phases';
import { makeListStories } from './list-stories';
import { makeUpdateStory } from './update-story';
import { makeCreatePhase } from './create-phase';
import { makeDeletePhase } from './delete-phase';
import { makeReorderPhases } from './reorder-phases';
import { makeUpdatePhase } from './update-phase';
import { makeUpdateStories } from './update-stories';
import { makeCreateTask } from './create-task';
import { makeUpdateTask } from './update-task';
import { makeReorderTasks } from './reorder-tasks';
import { makeCreateComment } from './create-comment';
import { makeUpdateComment } from './update-comment';
import { makeDeleteComment } from './delete-comment';
import type {
  BoardsRepositories,
  BoardsStore,
  CommentRecord,
  OutboxMessage,
  PhaseRecord,
  StoryRecord,
  TagRepository,
  TaskRecord,
} from './ports';

/** Tags have their own fakes (tag-use-cases.test.ts); the use cases here must not touch them. */
const tagsNotFakedHere = new Proxy({} as TagRepository, {
  get: (_target, name) => () => Promise.reject(new Error(`tags.${String(name)} is not faked in this suite`)),
});

/** An in-memory BoardsStore: enough behaviour to test the use cases' orchestration without I/O. */
function fakeStore() {
  const boards = new Map<number, { lastStoryId: number }>();
  const phases: PhaseRecord[] = [];
  const stories: StoryRecord[] = [];
  const milestones: Array<{ projectId: number; storyId: number; phaseId: number }> = [];
  const steps: Array<{ projectId: number; storyId: number; type: string }> = [];
  let nextPhaseId = 100;
  const tasks: TaskRecord[] = [];
  const comments: CommentRecord[] = [];
  let nextChildId = 500;
  const storyExists = (projectId: number, storyId: number) =>
    stories.some((s) => s.projectId === projectId && s.id === storyId);
  const ofStory = <T extends { projectId: number; storyId: number }>(all: T[], p: number, s: number) =>
    all.filter((x) => x.projectId === p && x.storyId === s);
  const now = new Date('2024-05-01T10:00:00.123Z');

  const outbox: OutboxMessage[] = [];
  const deletedProjects = new Set<number>();
  const repos: BoardsRepositories = {
    tags: tagsNotFakedHere,
    outbox: {
      async enqueue(message) {
        outbox.push(message);
      },
    },
    boards: {
      async insertIfAbsent(projectId) {
        if (boards.has(projectId) || deletedProjects.has(projectId)) return false;
        boards.set(projectId, { lastStoryId: 0 });
        return true;
      },
      async allocateStoryId(projectId) {
        const board = boards.get(projectId);
        if (!board) return undefined;
        return ++board.lastStoryId;
      },
      async lock(projectId) {
        return boards.has(projectId);
      },
      async deleteProject(projectId) {
        boards.delete(projectId);
        const children: Array<Array<{ projectId: number }>> = [
          phases,
          stories,
          milestones,
          steps,
          tasks,
          comments,
        ];
        for (const all of children) {
          for (let i = all.length - 1; i >= 0; i--) if (all[i]!.projectId === projectId) all.splice(i, 1);
        }
        if (deletedProjects.has(projectId)) return false;
        deletedProjects.add(projectId);
        return true;
      },
    },
    phases: {
      async insertMany(projectId, templates) {
        templates.forEach((t, position) =>
          phases.push({ id: nextPhaseId++, projectId, ...t, position, wipLimit: null }),
        );
      },
      async listByProject(projectId) {
        return phases.filter((p) => p.projectId === projectId).sort((a, b) => a.position - b.position);
      },
      async listByProjects(projectIds) {
        const byProject = new Map<number, PhaseRecord[]>();
        for (const id of projectIds) {
          const own = await this.listByProject(id);
          if (own.length) byProject.set(id, own);
        }
        return byProject;
      },
      async findPlacement(projectId, phaseId) {
        const own = phases.filter((p) => p.projectId === projectId);
        const phase = own.find((p) => (phaseId === 'backlog' ? p.position === 0 : p.id === phaseId));
        return phase && { phase, lastPosition: Math.max(...own.map((p) => p.position)) };
      },
      async find(projectId, phaseId) {
        return phases.find((p) => p.projectId === projectId && p.id === phaseId);
      },
      async insertAt(projectId, phase) {
        for (const p of phases) if (p.projectId === projectId && p.position >= phase.position) p.position++;
        const record = { id: nextPhaseId++, projectId, ...phase };
        phases.push(record);
        return record;
      },
      async update(projectId, phaseId, write) {
        const phase = phases.find((p) => p.projectId === projectId && p.id === phaseId)!;
        const from = phase.position;
        for (const p of phases) {
          if (p.projectId !== projectId || p === phase) continue;
          if (from < write.position && p.position > from && p.position <= write.position) p.position--;
          if (write.position < from && p.position >= write.position && p.position < from) p.position++;
        }
        return Object.assign(phase, write);
      },
      async delete(projectId, phaseId) {
        const i = phases.findIndex((p) => p.projectId === projectId && p.id === phaseId);
        if (i < 0) return false;
        const [gone] = phases.splice(i, 1);
        for (const p of phases) if (p.projectId === projectId && p.position > gone!.position) p.position--;
        return true;
      },
      async reorder(projectId, phaseIds) {
        phaseIds.forEach((id, position) => {
          phases.find((p) => p.projectId === projectId && p.id === id)!.position = position;
        });
      },
    },
    stories: {
      async nextBoardPosition(projectId, phaseId) {
        const inPhase = stories.filter((s) => s.projectId === projectId && s.phase.id === phaseId);
        return Math.max(0, ...inPhase.map((s) => s.boardPosition)) + 1;
      },
      async insert(story) {
        const phase = phases.find((p) => p.id === story.phaseId)!;
        const record: StoryRecord = {
          ...story,
          blockedReason: null,
          phase: { id: phase.id, name: phase.name },
          createdAt: now,
        };
        stories.push(record);
        return record;
      },
      async find(projectId, storyId) {
        return stories.find((s) => s.projectId === projectId && s.id === storyId);
      },
      async findMany(projectId, storyIds) {
        return stories.filter((s) => s.projectId === projectId && storyIds.includes(s.id));
      },
      async findForUpdate(projectId, storyId) {
        const story = stories.find((s) => s.projectId === projectId && s.id === storyId);
        if (!story) return undefined;
        const own = phases.filter((p) => p.projectId === projectId);
        const phasePosition = own.find((p) => p.id === story.phase.id)!.position;
        return { story, phasePosition, lastPosition: Math.max(...own.map((p) => p.position)) };
      },
      async list(projectId, query) {
        const own = stories.filter((s) => s.projectId === projectId);
        return { stories: own.slice(query.offset, query.offset + query.limit), total: own.length };
      },
      async update(projectId, storyId, write) {
        const story = stories.find((s) => s.projectId === projectId && s.id === storyId)!;
        const phase = phases.find((p) => p.id === write.phaseId)!;
        Object.assign(story, { ...write, phase: { id: phase.id, name: phase.name } });
        return story;
      },
      async delete(projectId, storyId) {
        const i = stories.findIndex((s) => s.projectId === projectId && s.id === storyId);
        if (i >= 0) stories.splice(i, 1);
        return i >= 0;
      },
      async matchingIds(projectId) {
        return stories.filter((s) => s.projectId === projectId).map((s) => s.id);
      },
      async idsInPhase(projectId, phaseId) {
        return stories
          .filter((s) => s.projectId === projectId && s.phase.id === phaseId)
          .sort((a, b) => a.boardPosition - b.boardPosition)
          .map((s) => s.id);
      },
      async reorderInPhase(projectId, phaseId, storyIds) {
        storyIds.forEach((id, i) => {
          stories.find((s) => s.projectId === projectId && s.id === id)!.boardPosition = i + 1;
        });
      },
      async anyInPhase(projectId, phaseId) {
        return stories.some((s) => s.projectId === projectId && s.phase.id === phaseId);
      },
    },
    history: {
      async openMilestone({ projectId, storyId, phaseId }) {
        milestones.push({ projectId, storyId, phaseId });
      },
      async openStep({ projectId, storyId, type }) {
        steps.push({ projectId, storyId, type });
      },
      async moveMilestone({ projectId, storyId, phaseId }) {
        milestones.push({ projectId, storyId, phaseId });
      },
      async changeStep({ projectId, storyId, type }) {
        steps.push({ projectId, storyId, type });
      },
    },
    tasks: {
      lockStory: async (projectId, storyId) => storyExists(projectId, storyId),
      async list(projectId, storyId, offset, limit) {
        const all = ofStory(tasks, projectId, storyId).sort((a, b) => a.position - b.position);
        return { tasks: all.slice(offset, offset + limit), total: all.length };
      },
      listForStories: async (projectId, storyIds) =>
        tasks.filter((t) => t.projectId === projectId && storyIds.includes(t.storyId)),
      find: async (projectId, storyId, taskId) =>
        ofStory(tasks, projectId, storyId).find((t) => t.id === taskId),
      async append(projectId, storyId, write) {
        const position = Math.max(0, ...ofStory(tasks, projectId, storyId).map((t) => t.position)) + 1;
        const task = { id: ++nextChildId, projectId, storyId, position, createdAt: now, ...write };
        tasks.push(task);
        return task;
      },
      async update(projectId, storyId, taskId, write) {
        const task = ofStory(tasks, projectId, storyId).find((t) => t.id === taskId)!;
        return Object.assign(task, write);
      },
      async delete(projectId, storyId, taskId) {
        const i = tasks.findIndex(
          (t) => t.projectId === projectId && t.storyId === storyId && t.id === taskId,
        );
        if (i >= 0) tasks.splice(i, 1);
        return i >= 0;
      },
      ids: async (projectId, storyId) =>
        ofStory(tasks, projectId, storyId)
          .sort((a, b) => a.position - b.position)
          .map((t) => t.id),
      async reorder(projectId, storyId, taskIds) {
        taskIds.forEach(
          (id, i) => (ofStory(tasks, projectId, storyId).find((t) => t.id === id)!.position = i + 1),
        );
      },
    },
    comments: {
      async list(projectId, storyId, offset, limit) {
        const all = ofStory(comments, projectId, storyId);
        return { comments: all.slice(offset, offset + limit), total: all.length };
      },
      listForStories: async (projectId, storyIds) =>
        comments.filter((c) => c.projectId === projectId && storyIds.includes(c.storyId)),
      find: async (projectId, storyId, id) => ofStory(comments, projectId, storyId).find((c) => c.id === id),
      findForUpdate: async (projectId, storyId, id) =>
        ofStory(comments, projectId, storyId).find((c) => c.id === id),
      async insert(comment) {
        const record = { id: ++nextChildId, createdAt: now, ...comment };
        comments.push(record);
        return record;
      },
      async updateText(projectId, storyId, id, text) {
        return Object.assign(
          ofStory(comments, projectId, storyId).find((c) => c.id === id)!,
          { text },
        );
      },
      async delete(projectId, storyId, id) {
        const i = comments.findIndex(
          (c) => c.projectId === projectId && c.storyId === storyId && c.id === id,
        );
        if (i >= 0) comments.splice(i, 1);
        return i >= 0;
      },
    },
  };
  // No rollback in the fake: the use cases under test validate before they write.
  const store: BoardsStore = { ...repos, transaction: (work) => work(repos) };
  return { store, boards, phases, stories, milestones, steps, tasks, comments, outbox };
}

const command = (over: Partial<CreateStoryCommand> = {}): CreateStoryCommand => ({
  projectId: 1,
  text: 'Build Spec house',
  phaseId: 0,
  ownerId: 0,
  creatorId: 7,
  ...over,
});

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

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
    await updateStory({ projectId: 1, storyId: 1, phaseId: boardPhases[0]!.id });
    expect(milestones).toHaveLength(1);
    const error = await rejection(updateStory({ projectId: 1, storyId: 1, status: 'started' }));
    expect(error.problem).toBe('invalid-state');
  });

  it('assigns, unassigns, clears the deadline; an unknown story is NotFound', async () => {
    const { updateStory } = await story();
    expect(
      (await updateStory({ projectId: 1, storyId: 1, ownerId: 9, deadline: '2011-02-24' })).ownerId,
    ).toBe(9);
    const cleared = await updateStory({ projectId: 1, storyId: 1, ownerId: 0, deadline: '' });
    expect([cleared.ownerId, cleared.deadline]).toEqual([null, null]);
    expect((await rejection(updateStory({ projectId: 1, storyId: 5, text: 'x' }))).kind).toBe('NotFound');
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
    expect(fake.outbox).toHaveLength(1);
    const message = fake.outbox[0]!;
    expect(message).toMatchObject({
      topic: 'boards.story-deleted.v1',
      key: '1',
      headers: { 'x-request-id': 'r1' },
    });
    const event = parseEvent(storyDeletedV1, JSON.stringify(message.payload));
    expect(event.id).toBe(message.id);
    expect(event.data).toMatchObject({ projectId: 1, storyId: 1, deletedBy: 7 });
    expect(signals).toBe(1);
    expect((await rejection(del({ projectId: 1, storyId: 1, deletedBy: 7 }))).kind).toBe('NotFound');
    expect(fake.outbox).toHaveLength(1);
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
    const created = await makeCreatePhase(store)({ projectId: 1, name: 'Review', description: '', limit: 0 });
    expect(created.position).toBe(4);
    await makeCreatePhase(store)({ projectId: 1, name: 'Triage', description: '', index: 1, limit: 2 });
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
      makeCreatePhase(store)({ projectId: 1, name: 'X', description: '', index: 0, limit: 0 }),
    );
    expect(bad.kind).toBe('InvalidArgument');
  });

  it('UpdatePhase moves a middle phase and refuses to move Backlog or Archive', async () => {
    const { store, phases, order } = await board();
    const ready = phases.find((p) => p.name === 'Ready')!;
    await makeUpdatePhase(store)({ projectId: 1, phaseId: ready.id, index: 3, limit: 4 });
    expect(order()).toEqual(['Backlog@0', 'Working@1', 'Complete@2', 'Ready@3', 'Archive@4']);
    expect(ready.wipLimit).toBe(4);
    const backlog = phases.find((p) => p.name === 'Backlog')!;
    expect(
      (await rejection(makeUpdatePhase(store)({ projectId: 1, phaseId: backlog.id, index: 1 }))).kind,
    ).toBe('InvalidArgument');
    await makeUpdatePhase(store)({ projectId: 1, phaseId: backlog.id, name: 'Icebox' });
    expect(order()[0]).toBe('Icebox@0');
  });

  it('DeletePhase: Backlog/Archive → 400, a phase with stories → 409, else closes the gap', async () => {
    const { store, phases, order } = await board();
    const byName = (n: string) => phases.find((p) => p.name === n)!;
    const del = makeDeletePhase(store);
    expect((await rejection(del(1, byName('Archive').id))).kind).toBe('InvalidArgument');
    await makeCreateStory(store)(command({ phaseId: byName('Working').id }));
    expect((await rejection(del(1, byName('Working').id))).kind).toBe('Conflict');
    await del(1, byName('Ready').id);
    expect(order()).toEqual(['Backlog@0', 'Working@1', 'Complete@2', 'Archive@3']);
  });

  it('ReorderPhases validates before writing', async () => {
    const { store, phases, order } = await board();
    const ids = [...phases].sort((a, b) => a.position - b.position).map((p) => p.id);
    expect((await rejection(makeReorderPhases(store)(1, ids.slice(1)))).kind).toBe('InvalidArgument');
    await makeReorderPhases(store)(1, [ids[0]!, ids[3]!, ids[2]!, ids[1]!, ids[4]!]);
    expect(order()).toEqual(['Backlog@0', 'Complete@1', 'Working@2', 'Ready@3', 'Archive@4']);
  });
});

describe('UpdateStories', () => {
  it('requires a where filter', async () => {
    const { store } = fakeStore();
    for (const where of ['', '   ']) {
      const err = await rejection(
        makeUpdateStories(store)({ projectId: 1, where, users: [], page: 1, pageSize: 100, color: 'red' }),
      );
      expect(err.kind).toBe('InvalidArgument');
      expect(err.problem).toBe('invalid-parameter');
    }
  });
});

describe('Tasks', () => {
  async function storyWithBoard() {
    const fake = fakeStore();
    await makeCreateBoard(fake.store)(1);
    const story = await makeCreateStory(fake.store)(
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

describe('Comments', () => {
  async function withComment() {
    const fake = fakeStore();
    await makeCreateBoard(fake.store)(1);
    const story = await makeCreateStory(fake.store)(command({ projectId: 1 }));
    const comment = await makeCreateComment(fake.store)({
      projectId: 1,
      storyId: story.id,
      text: 'hi',
      callerId: 5,
    });
    return { ...fake, story, comment };
  }

  it('only the author may edit', async () => {
    const { store, story, comment } = await withComment();
    const update = makeUpdateComment(store);
    const key = { projectId: 1, storyId: story.id, commentId: comment.id };
    expect((await rejection(update({ ...key, text: 'x', callerId: 6 }))).kind).toBe('PermissionDenied');
    expect((await update({ ...key, text: 'edited', callerId: 5 })).text).toBe('edited');
  });

  it('the author or an admin may delete; others are refused', async () => {
    const { store, story, comment, comments } = await withComment();
    const remove = makeDeleteComment(store);
    const key = { projectId: 1, storyId: story.id, commentId: comment.id };
    expect((await rejection(remove({ ...key, callerId: 6, isAdmin: false }))).kind).toBe('PermissionDenied');
    await remove({ ...key, callerId: 6, isAdmin: true });
    expect(comments).toHaveLength(0);
    expect((await rejection(remove({ ...key, callerId: 5, isAdmin: false }))).kind).toBe('NotFound');
  });
});
