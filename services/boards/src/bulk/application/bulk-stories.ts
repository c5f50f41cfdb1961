import { changesMark, DomainError, isCallersError, parseExpectedVersion } from '@flowboard/service-kit';
import type { Savepoints } from '../../board/application/ports';
import type { Store } from '../../board/application/store';
import { noSignal, type OutboxSignal } from '../../shared/application/resource-events';
import { requirePositiveId } from '../../shared/domain/ids';
import {
  prepareNewStory,
  writeNewStory,
  type CreateStoryCommand,
  type NewStoryPart,
  type PreparedStory,
} from '../../stories/application/create-story';
import type { StoryRecord } from '../../stories/application/ports';
import type { StoriesRepositories } from '../../stories/application/stories-store';
import { applyChangesToStories, applyStoryChanges } from '../../stories/application/update-story';
import { parseStoryChanges, type StoryChanges, type StoryUpdate } from '../../stories/domain/story';
import { writeStoryTags } from '../../tags/application/set-story-tags';
import type { TagsRepositories } from '../../tags/application/tags-store';
import { parseTagRef } from '../../tags/domain/tags';

/** What a bulk write reaches: a story's repositories, the tags', and the transaction's savepoints. */
export type BulkRepositories = StoriesRepositories & TagsRepositories & { savepoints: Savepoints };

/** The most stories one bulk request takes: it holds the board's lock for all of them. */
export const MAX_BULK_STORIES = 100;

/**
 * One story's outcome, in request order: done (the story as it is now), failed (the error a single call would have
 * answered), or, in an atomic request, not applied because the story at `failedIndex` failed.
 */
export type BulkOutcome =
  | { done: true; story: StoryRecord }
  | { done: false; error: DomainError }
  | { done: false; notAppliedBecause: number };

export interface BulkCreateCommand {
  projectId: number;
  creatorId: number;
  stories: ReadonlyArray<Omit<CreateStoryCommand, 'projectId' | 'creatorId'>>;
  atomic: boolean;
}

export interface BulkStoryUpdateItem {
  storyId: number;
  update: StoryUpdate;
  /** 0 or undefined = unconditional. */
  expectedVersion?: number;
  /** The story's whole set of tags, when given (`[]` takes them all off). */
  tags?: ReadonlyArray<{ id: number; name: string }>;
}

export interface BulkUpdateCommand {
  projectId: number;
  actorId: number;
  stories: readonly BulkStoryUpdateItem[];
  atomic: boolean;
}

export type BulkCreateStories = (command: BulkCreateCommand) => Promise<BulkOutcome[]>;
export type BulkUpdateStories = (command: BulkUpdateCommand) => Promise<BulkOutcome[]>;

const invalidBody = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-field' });

function requireBatchSize(count: number): void {
  if (count === 0) throw invalidBody("Field 'stories' must hold one story at least.");
  if (count > MAX_BULK_STORIES)
    throw invalidBody(
      `Field 'stories' holds ${count} stories; at most ${MAX_BULK_STORIES} go in one request.`,
    );
}

/** A story's own failure is its answer; anything else (the database, a bug) fails the whole request. */
const isStoryError = isCallersError;

/** Thrown out of an atomic request's transaction to roll it back, with the story that failed. */
class AtomicFailure extends Error {
  constructor(
    readonly index: number,
    readonly error: DomainError,
  ) {
    super('atomic bulk write failed');
  }
}

/** Every story of an atomic request that failed: its error; every other one: not applied because of the first. */
function atomicOutcomes(count: number, failures: ReadonlyMap<number, DomainError>): BulkOutcome[] {
  const first = Math.min(...failures.keys());
  return Array.from({ length: count }, (_, i) => {
    const error = failures.get(i);
    return error ? { done: false, error } : { done: false, notAppliedBecause: first };
  });
}

/** A checked item, or the error that refused it before any I/O. */
type Checked<T> = { ok: true; value: T } | { ok: false; error: DomainError };
function check<T>(make: () => T): Checked<T> {
  try {
    return { ok: true, value: make() };
  } catch (error) {
    if (!isStoryError(error)) throw error;
    return { ok: false, error };
  }
}

/** The items whose checks refused them before any I/O: their errors, by index. */
function refusedBeforeIo<T>(items: ReadonlyArray<Checked<T>>): Map<number, DomainError> {
  return new Map(items.flatMap((item, i) => (item.ok ? [] : [[i, item.error] as const])));
}

/** Thrown out of a transaction to run it again, with a savepoint for the story that failed after writing. */
class WroteThenFailed extends Error {
  constructor(readonly index: number) {
    super('a bulk story failed after writing');
  }
}

/**
 * Runs each checked item's write in ONE transaction under the board's lock (gathered with the board's other writes
 * like any write of it). A board that does not exist is the request's 404.
 *
 * Atomic: the first failure rolls everything back. Not atomic: each story is all or nothing, and its failure is its
 * outcome. A story that fails before writing anything (a stale version, a missing story: the usual failures) just
 * records it. One that fails after writing (an unknown tag id, after its new tags were made) cannot be undone
 * alone without a savepoint, so the transaction is rolled back and run again with a savepoint around that story:
 * savepoints only where needed, since PostgreSQL slows every session down past 64 in one transaction (measured: 32
 * requests of 100 stories each under savepoints answered one request in 10 s).
 */
async function runBulk<T>(
  store: Store<BulkRepositories>,
  projectId: number,
  items: ReadonlyArray<Checked<T>>,
  atomic: boolean,
  write: (tx: BulkRepositories, item: T) => Promise<StoryRecord>,
): Promise<BulkOutcome[]> {
  const refused = refusedBeforeIo(items);
  if (atomic && refused.size > 0) return atomicOutcomes(items.length, refused);
  const guarded = new Set<number>(); // the stories that need a savepoint
  for (;;) {
    try {
      return await store.boardTransaction(
        projectId,
        async (tx) => {
          if (!(await tx.boards.lock(projectId))) throw new DomainError('NotFound', 'Board not found');
          const outcomes: BulkOutcome[] = [];
          for (const [index, item] of items.entries()) {
            if (!item.ok) {
              outcomes.push({ done: false, error: item.error });
              continue;
            }
            // The story's recorded changes (Flowboard-Changes) go when it is undone.
            const changes = changesMark();
            const since = tx.savepoints.mark();
            try {
              const story = guarded.has(index)
                ? await tx.savepoints.within(() => write(tx, item.value))
                : await write(tx, item.value);
              outcomes.push({ done: true, story });
            } catch (error) {
              changes.undo();
              if (!isStoryError(error)) throw error;
              if (atomic) throw new AtomicFailure(index, error);
              if (!guarded.has(index) && since.wrote()) throw new WroteThenFailed(index);
              outcomes.push({ done: false, error });
            }
          }
          return outcomes;
        },
        items.length,
      );
    } catch (error) {
      if (error instanceof AtomicFailure)
        return atomicOutcomes(items.length, new Map([[error.index, error.error]]));
      if (!(error instanceof WroteThenFailed)) throw error;
      guarded.add(error.index);
    }
  }
}

/**
 * `POST P/stories/bulk`: up to 100 stories, each made exactly as CreateStory makes one (numbered in request order,
 * at the bottom of its phase, with its tasks and tags, `story.created` and its parts' events).
 */
export function makeBulkCreateStories<Tx extends BulkRepositories>(
  store: Store<Tx>,
  signal: OutboxSignal = noSignal,
  parts: ReadonlyArray<NewStoryPart<Tx>> = [],
): BulkCreateStories {
  return async (command) => {
    const projectId = requirePositiveId('project_id', command.projectId);
    requireBatchSize(command.stories.length);
    const items = command.stories.map((story) =>
      check(() => prepareNewStory({ ...story, projectId, creatorId: command.creatorId }, parts)),
    );
    const outcomes = await runBulk(
      store as Store<BulkRepositories>,
      projectId,
      items,
      command.atomic,
      (tx, item) => writeNewStory(tx as Tx, item as PreparedStory<Tx>),
    );
    signal();
    return outcomes;
  };
}

/**
 * `PUT P/stories/bulk`: each story's own partial update (only its fields sent change), its own `If-Match`, and
 * optionally its whole set of tags, each as the single calls would apply them, with their events. A story named
 * twice is the request's 400: which of the two should win is not for the server to guess.
 */
export function makeBulkUpdateStories(
  store: Store<BulkRepositories>,
  signal: OutboxSignal = noSignal,
): BulkUpdateStories {
  return async (command) => {
    const projectId = requirePositiveId('project_id', command.projectId);
    requireBatchSize(command.stories.length);
    const seen = new Set<number>();
    for (const { storyId } of command.stories) {
      if (seen.has(storyId)) throw invalidBody(`Story ${storyId} is named twice; name each story once.`);
      seen.add(storyId);
    }
    const items = command.stories.map((item) =>
      check(() => {
        if (!Number.isSafeInteger(item.storyId) || item.storyId <= 0)
          throw new DomainError('NotFound', 'Story not found');
        return {
          storyId: item.storyId,
          changes: parseStoryChanges(item.update),
          expectedVersion: parseExpectedVersion(item.expectedVersion),
          tags: item.tags?.map((t) => parseTagRef(t, 'tags')),
        };
      }),
    );
    // Stories that change no tags are written set-based (a few statements for all of them); a request with tags
    // runs story by story, as tags are made and linked per story and an unknown tag fails after writing.
    const outcomes = command.stories.some((item) => item.tags !== undefined)
      ? await runBulk(store, projectId, items, command.atomic, async (tx, item) =>
          updateOne(tx, projectId, command.actorId, item),
        )
      : await runSetBased(store, projectId, command.actorId, items, command.atomic);
    signal();
    return outcomes;
  };
}

/**
 * A bulk update without tags in ONE transaction under the board's lock, its checked stories written together by
 * applyChangesToStories: a story's failure is decided before anything is written, so no savepoint is needed.
 */
async function runSetBased(
  store: Store<BulkRepositories>,
  projectId: number,
  actorId: number,
  items: ReadonlyArray<Checked<{ storyId: number; changes: StoryChanges; expectedVersion?: number }>>,
  atomic: boolean,
): Promise<BulkOutcome[]> {
  const refused = refusedBeforeIo(items);
  if (atomic && refused.size > 0) return atomicOutcomes(items.length, refused);
  const wanted = items.flatMap((item, index) => (item.ok ? [{ index, ...item.value }] : []));
  return store.boardTransaction(
    projectId,
    async (tx) => {
      if (!(await tx.boards.lock(projectId))) throw new DomainError('NotFound', 'Board not found');
      const written = await applyChangesToStories(tx, projectId, actorId, wanted, { allOrNothing: atomic });
      const byIndex = new Map(written.map((outcome, i) => [wanted[i]!.index, outcome]));
      if (atomic) {
        // Nothing was refused before I/O (that answered above): the failures are the written stories' own.
        const failures = new Map(
          [...byIndex].flatMap(([i, o]) => ('error' in o ? [[i, o.error] as const] : [])),
        );
        if (failures.size > 0) return atomicOutcomes(items.length, failures);
      }
      return items.map((item, index): BulkOutcome => {
        if (!item.ok) return { done: false, error: item.error };
        const outcome = byIndex.get(index);
        if (outcome && 'story' in outcome) return { done: true, story: outcome.story };
        if (outcome && 'error' in outcome) return { done: false, error: outcome.error };
        throw new Error(`bulk story ${index} has no outcome`); // applyChangesToStories answers every item
      });
    },
    items.length,
  );
}

async function updateOne(
  tx: BulkRepositories,
  projectId: number,
  actorId: number,
  item: {
    storyId: number;
    changes: StoryChanges;
    expectedVersion?: number;
    tags?: ReturnType<typeof parseTagRef>[];
  },
): Promise<StoryRecord> {
  const story = await applyStoryChanges(
    tx,
    projectId,
    item.storyId,
    item.changes,
    actorId,
    item.expectedVersion,
  );
  if (!story) throw new DomainError('NotFound', 'Story not found');
  if (item.tags)
    await writeStoryTags(tx, { projectId, storyId: item.storyId }, item.tags, { replace: true, actorId });
  return story;
}
