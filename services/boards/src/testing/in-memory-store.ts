import { parseEvent, resourceChangedV1, type OutboxMessage } from '@flowboard/events';
import { DomainError } from '@flowboard/service-kit';
import type { BoardRepository } from '../board/application/ports';
import type { Store } from '../board/application/store';
import type { CommentRecord, CommentRepository } from '../comments/application/ports';
import type { StoryHistoryRepository } from '../history/application/ports';
import type { PhaseRecord, PhaseRepository } from '../phases/application/ports';
import type { KeysetWindow } from '../shared/application/list-window';
import type { BoardsOutbox } from '../shared/application/resource-events';
import type { CreateStoryCommand } from '../stories/application/create-story';
import type { LockedStory, StoryRecord, StoryRepository } from '../stories/application/ports';
import type { TagRepository } from '../tags/application/ports';
import type { TaskRecord, TaskRepository } from '../tasks/application/ports';

/**
 * Test support for the use-case unit tests of every slice (not built into dist): one in-memory store holding
 * every repository, as src/app.ts's store does, so a test can set up a board and a story with the real use
 * cases and then exercise another slice's.
 */

/** Every repository of the boards service. */
export interface InMemoryRepositories {
  boards: BoardRepository;
  outbox: BoardsOutbox;
  phases: PhaseRepository;
  stories: StoryRepository;
  history: StoryHistoryRepository;
  tasks: TaskRepository;
  comments: CommentRepository;
  tags: TagRepository;
}

/** Tags have their own fakes (tags/application/tag-support.test.ts); the use cases tested here skip them. */
const tagsNotFakedHere = new Proxy({} as TagRepository, {
  get: (_target, name) => () => Promise.reject(new Error(`tags.${String(name)} is not faked in this suite`)),
});

/** Stores a write's values; like migration 0009's triggers, raises the version when a shown one changed. */
function applyWrite<T extends { version: number }>(
  record: T,
  values: Partial<T>,
  shown: ReadonlyArray<keyof T>,
): T {
  const same = (a: unknown, b: unknown) =>
    a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b;
  const changed = shown.some((key) => key in values && !same(record[key], values[key]));
  return Object.assign(record, values, changed ? { version: record.version + 1 } : {});
}

/** A keyset page of `all` (README "Sync: cursors and updatedSince"), as the repositories' listById answers it. */
function keysetOf<T extends { id: number }>(all: T[], { afterId, limit }: KeysetWindow) {
  const after = all.filter((x) => x.id > afterId).sort((a, b) => a.id - b.id);
  return { page: after.slice(0, limit), total: all.length, more: after.length > limit };
}

const PHASE_SHOWN = ['name', 'description', 'position', 'wipLimit'] as const;
const STORY_SHOWN: ReadonlyArray<keyof StoryRecord> = [
  'text',
  'details',
  'size',
  'priority',
  'color',
  'status',
  'blockedReason',
  'ownerId',
  'deadline',
];

/** An in-memory store of every slice: enough behaviour to test the use cases' orchestration without I/O. */
export function fakeStore() {
  const boards = new Map<number, { lastStoryId: number }>();
  const phases: PhaseRecord[] = [];
  const stories: StoryRecord[] = [];
  const milestones: Array<{ projectId: number; storyId: number; phaseId: number }> = [];
  const steps: Array<{ projectId: number; storyId: number; type: string }> = [];
  let nextPhaseId = 100;
  const tasks: TaskRecord[] = [];
  const comments: CommentRecord[] = [];
  let nextChildId = 500;
  /** The position below the phase's last story, as the repository's insert and 'bottom' update place it. */
  const bottomOf = (projectId: number, phaseId: number) =>
    Math.max(
      0,
      ...stories
        .filter((s) => s.projectId === projectId && s.phase.id === phaseId)
        .map((s) => s.boardPosition),
    ) + 1;
  const storyExists = (projectId: number, storyId: number) =>
    stories.some((s) => s.projectId === projectId && s.id === storyId);
  const ofStory = <T extends { projectId: number; storyId: number }>(all: T[], p: number, s: number) =>
    all.filter((x) => x.projectId === p && x.storyId === s);
  const now = new Date('2024-05-01T10:00:00.123Z');

  const outbox: OutboxMessage[] = [];
  const deletedProjects = new Set<number>();
  const repos: InMemoryRepositories = {
    tags: tagsNotFakedHere,
    outbox: {
      async enqueue(message) {
        outbox.push(message);
      },
      async enqueueAll(messages) {
        outbox.push(...messages);
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
      async holdsStories(projectId, phaseId) {
        return stories.some((s) => s.projectId === projectId && s.phase.id === phaseId);
      },
      async insertMany(projectId, templates) {
        templates.forEach((t, position) =>
          phases.push({ id: nextPhaseId++, projectId, ...t, position, wipLimit: null, version: 1 }),
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
        for (const p of phases) {
          if (p.projectId === projectId && p.position >= phase.position)
            applyWrite(p, { position: p.position + 1 }, PHASE_SHOWN);
        }
        const record = { id: nextPhaseId++, projectId, ...phase, version: 1 };
        phases.push(record);
        return record;
      },
      async update(projectId, phaseId, values) {
        const phase = phases.find((p) => p.projectId === projectId && p.id === phaseId)!;
        const from = phase.position;
        for (const p of phases) {
          if (p.projectId !== projectId || p === phase) continue;
          if (from < values.position && p.position > from && p.position <= values.position)
            applyWrite(p, { position: p.position - 1 }, PHASE_SHOWN);
          if (values.position < from && p.position >= values.position && p.position < from)
            applyWrite(p, { position: p.position + 1 }, PHASE_SHOWN);
        }
        return applyWrite(phase, values, PHASE_SHOWN);
      },
      async delete(projectId, phaseId) {
        const i = phases.findIndex((p) => p.projectId === projectId && p.id === phaseId);
        if (i < 0) return false;
        const [gone] = phases.splice(i, 1);
        for (const p of phases) {
          if (p.projectId === projectId && p.position > gone!.position)
            applyWrite(p, { position: p.position - 1 }, PHASE_SHOWN);
        }
        return true;
      },
      async reorder(projectId, phaseIds) {
        phaseIds.forEach((id, position) => {
          applyWrite(
            phases.find((p) => p.projectId === projectId && p.id === id)!,
            { position },
            PHASE_SHOWN,
          );
        });
      },
    },
    stories: {
      async insert(story) {
        const phase = phases.find((p) => p.id === story.phaseId)!;
        const record: StoryRecord = {
          ...story,
          boardPosition: bottomOf(story.projectId, story.phaseId),
          blockedReason: null,
          phase: { id: phase.id, name: phase.name },
          createdAt: now,
          version: 1,
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
      async findForUpdate(projectId, storyId, movingTo) {
        const story = stories.find((s) => s.projectId === projectId && s.id === storyId);
        if (!story) return undefined;
        const own = phases.filter((p) => p.projectId === projectId);
        const phasePosition = own.find((p) => p.id === story.phase.id)!.position;
        // A copy, as a database read is: the use cases compare it with the story after their update.
        const copy = { ...story, phase: { ...story.phase } };
        const target = own.find((p) => p.id === movingTo);
        return {
          story: copy,
          phasePosition,
          lastPosition: Math.max(...own.map((p) => p.position)),
          ...(movingTo === undefined
            ? {}
            : { target: target ? { id: target.id, position: target.position } : null }),
        };
      },
      // The set-based methods do what the single ones do, one story after another (the SQL is tested on PostgreSQL).
      async findManyForUpdate(projectId, wanted) {
        const locked = new Map<number, LockedStory>();
        for (const { storyId, movingTo } of wanted) {
          const found = await repos.stories.findForUpdate(projectId, storyId, movingTo);
          if (found) locked.set(storyId, found);
        }
        return locked;
      },
      async updateMany(projectId, writes) {
        const updated: StoryRecord[] = [];
        for (const { storyId, write } of writes)
          updated.push(await repos.stories.update(projectId, storyId, write));
        return updated;
      },
      async list(projectId, query) {
        const own = stories.filter((s) => s.projectId === projectId);
        return { stories: own.slice(query.offset, query.offset + query.limit), total: own.length };
      },
      async update(projectId, storyId, values) {
        const story = stories.find((s) => s.projectId === projectId && s.id === storyId)!;
        const phase = phases.find((p) => p.id === values.phaseId)!;
        const { phaseId, boardPosition, ...rest } = values;
        const moved = phaseId !== story.phase.id;
        story.boardPosition = boardPosition === 'bottom' ? bottomOf(projectId, phaseId) : boardPosition;
        const before = story.version;
        applyWrite(story, { ...rest, phase: { id: phase.id, name: phase.name } }, STORY_SHOWN);
        // A move changes a shown field too (the phase): one change with the rest.
        if (moved && story.version === before) story.version++;
        return story;
      },
      async delete(projectId, storyId) {
        const i = stories.findIndex((s) => s.projectId === projectId && s.id === storyId);
        return i >= 0 ? stories.splice(i, 1)[0] : undefined;
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
    },
    history: {
      async open({ projectId, storyId, phaseId, stepType }) {
        milestones.push({ projectId, storyId, phaseId });
        steps.push({ projectId, storyId, type: stepType });
      },
      async transition({ projectId, storyId, phaseId, stepType }) {
        if (phaseId !== undefined) milestones.push({ projectId, storyId, phaseId });
        if (stepType !== undefined) steps.push({ projectId, storyId, type: stepType });
      },
      async transitionMany(projectId, transitions, author) {
        for (const t of transitions) await repos.history.transition({ projectId, ...t, author });
      },
    },
    tasks: {
      lockStory: async (projectId, storyId) => storyExists(projectId, storyId),
      async list(projectId, storyId, offset, limit) {
        const all = ofStory(tasks, projectId, storyId).sort((a, b) => a.position - b.position);
        return { tasks: all.slice(offset, offset + limit), total: all.length };
      },
      async listById(projectId, storyId, window) {
        const { page, total, more } = keysetOf(ofStory(tasks, projectId, storyId), window);
        return { tasks: page, total, more };
      },
      listForStories: async (projectId, storyIds) =>
        tasks.filter((t) => t.projectId === projectId && storyIds.includes(t.storyId)),
      async find(projectId, storyId, taskId) {
        const task = ofStory(tasks, projectId, storyId).find((t) => t.id === taskId);
        return task && { ...task }; // a copy, as a database read is
      },
      async append(projectId, storyId, values) {
        const position = Math.max(0, ...ofStory(tasks, projectId, storyId).map((t) => t.position)) + 1;
        const task = {
          id: ++nextChildId,
          projectId,
          storyId,
          position,
          createdAt: now,
          ...values,
          version: 1,
        };
        tasks.push(task);
        return task;
      },
      async update(projectId, storyId, taskId, values) {
        const task = ofStory(tasks, projectId, storyId).find((t) => t.id === taskId)!;
        return applyWrite(task, values, ['text', 'status', 'finishedAt', 'finishedBy']);
      },
      async delete(projectId, storyId, taskId) {
        const i = tasks.findIndex(
          (t) => t.projectId === projectId && t.storyId === storyId && t.id === taskId,
        );
        return i >= 0 ? tasks.splice(i, 1)[0] : undefined;
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
      async listById(projectId, storyId, window) {
        const { page, total, more } = keysetOf(ofStory(comments, projectId, storyId), window);
        return { comments: page, total, more };
      },
      listForStories: async (projectId, storyIds) =>
        comments.filter((c) => c.projectId === projectId && storyIds.includes(c.storyId)),
      find: async (projectId, storyId, id) => ofStory(comments, projectId, storyId).find((c) => c.id === id),
      async findForUpdate(projectId, storyId, id) {
        const comment = ofStory(comments, projectId, storyId).find((c) => c.id === id);
        return comment && { ...comment }; // a copy, as a database read is
      },
      async insert(comment) {
        const record = { id: ++nextChildId, createdAt: now, ...comment, version: 1 };
        comments.push(record);
        return record;
      },
      async updateText(projectId, storyId, id, text) {
        return applyWrite(
          ofStory(comments, projectId, storyId).find((c) => c.id === id)!,
          { text },
          ['text'],
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
  const store: Store<InMemoryRepositories> = {
    ...repos,
    transaction: (work) => work(repos),
    boardTransaction: (_projectId, work) => work(repos),
  };
  return { store, boards, phases, stories, milestones, steps, tasks, comments, outbox };
}

/** A story to create in project 1's Backlog (the board must exist), by user 7. */
export const newStoryCommand = (over: Partial<CreateStoryCommand> = {}): CreateStoryCommand => ({
  projectId: 1,
  text: 'Build Spec house',
  phaseId: 0,
  ownerId: 0,
  creatorId: 7,
  ...over,
});

/** The DomainError a call failed with; fails the test if it succeeded (or threw anything else). */
export async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

/** The resource-changed events a fake store's outbox holds, in the order they were written. */
export function resourceChanges(outbox: readonly OutboxMessage[]) {
  return outbox
    .filter((m) => m.topic === resourceChangedV1.topic)
    .map((m) => {
      const event = parseEvent(resourceChangedV1, JSON.stringify(m.payload));
      expect([m.id, m.key]).toEqual([event.id, String(event.data.projectId)]);
      return event.data;
    });
}
