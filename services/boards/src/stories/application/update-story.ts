import { DomainError, isCallersError, parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import type { StepType } from '../../history/domain/steps';
import {
  changeAuthor,
  noSignal,
  publishStoryChange,
  publishStoryChanges,
  type OutboxSignal,
} from '../../shared/application/resource-events';
import { requirePositiveId } from '../../shared/domain/ids';
import { parseStoryChanges, type StoryChanges, type StoryUpdate } from '../domain/story';
import { storyUpdateEvents } from '../domain/story-events';
import { nextStatus, stepTypeForStatus } from '../domain/story-status';
import type { LockedStory, StoryRecord, StoryWrite } from './ports';
import type { StoriesRepositories, StoriesStore } from './stories-store';
import { toStoryMessage } from './story-message';

/** A partial update of one story: only the properties present change (docs/compat.md §1.4, §5.3). */
export interface UpdateStoryCommand extends StoryUpdate {
  projectId: number;
  storyId: number;
  /** 0 or undefined = unconditional; else the update happens only if the story is at this version. */
  expectedVersion?: number;
  /** The caller (from call metadata): the actor of the change events. */
  actorId: number;
}

export type UpdateStory = (command: UpdateStoryCommand) => Promise<StoryRecord>;

/**
 * Updates a story in one transaction under the board row lock (moves change board positions): the phase move
 * first (bottom of the new phase, automatic status, milestone closed and opened), then the status checked against
 * the new phase, a new step when the status changes. Moving to the phase the story is in is a no-op.
 */
export function makeUpdateStory(store: StoriesStore, signal: OutboxSignal = noSignal): UpdateStory {
  return async (command) => {
    const projectId = requirePositiveId('project_id', command.projectId);
    const storyId = command.storyId;
    const notFound = () => new DomainError('NotFound', 'Story not found');
    if (!Number.isSafeInteger(storyId) || storyId <= 0) throw notFound();
    const changes = parseStoryChanges(command);
    const expectedVersion = parseExpectedVersion(command.expectedVersion);
    const updated = await store.boardTransaction(projectId, async (tx) => {
      if (!(await tx.boards.lock(projectId))) throw notFound();
      const story = await applyStoryChanges(
        tx,
        projectId,
        storyId,
        changes,
        command.actorId,
        expectedVersion,
      );
      if (!story) throw notFound();
      return story;
    });
    signal();
    return updated;
  };
}

/**
 * Applies validated changes to one story inside a transaction that holds the board row lock; undefined when
 * the story does not exist. With `expectedVersion`, the locked story must be at that version
 * (PreconditionFailed before any other rule, nothing written). Writes the change's events (storyUpdateEvents:
 * none when nothing changed) to the outbox, each its own event with the story as it is after the update.
 */
export async function applyStoryChanges(
  tx: StoriesRepositories,
  projectId: number,
  storyId: number,
  changes: StoryChanges,
  actorId: number,
  expectedVersion?: number,
): Promise<StoryRecord | undefined> {
  const found = await tx.stories.findForUpdate(projectId, storyId, changes.phaseId);
  if (!found) return undefined;
  const plan = planStoryChange(found, changes, expectedVersion);
  const updated = await tx.stories.update(projectId, storyId, plan.write);
  await tx.history.transition({ projectId, storyId, ...plan.history, author: changeAuthor(actorId) });
  const resource = toStoryMessage(updated);
  for (const type of storyUpdateEvents(found.story, updated))
    await publishStoryChange(tx.outbox, { projectId, storyId, actorId, type, resource });
  return updated;
}

/** One story's changes in a set-based write (`applyChangesToStories`). */
export interface StoryChangeItem {
  storyId: number;
  changes: StoryChanges;
  /** 0 or undefined = unconditional. */
  expectedVersion?: number;
}

/**
 * Each story's outcome, in the items' order: the story as updated, the error a single update would have met, or
 * (all or nothing) not written because another story failed.
 */
export type StoryChangeOutcome = { story: StoryRecord } | { error: DomainError } | { notApplied: true };

/**
 * `applyStoryChanges` for many stories of one board, set-based: one statement locks and reads them all, the same
 * rules decide each story's write, then one statement writes the stories, one their history and one their events
 * (a statement a story each was 1.35 PostgreSQL ms a story, docs/benchmarks.md). Call under the board row lock,
 * each story named once. A story that breaks a rule (missing, stale, a phase or status refused) is its own outcome
 * and nothing of it is written; with `allOrNothing`, one such story means nothing is written at all. Stories
 * going to the bottom of the same phase land there in the items' order, as one by one.
 */
export async function applyChangesToStories(
  tx: StoriesRepositories,
  projectId: number,
  actorId: number,
  items: readonly StoryChangeItem[],
  { allOrNothing }: { allOrNothing: boolean },
): Promise<StoryChangeOutcome[]> {
  const locked = await tx.stories.findManyForUpdate(
    projectId,
    items.map((item) => ({ storyId: item.storyId, movingTo: item.changes.phaseId })),
  );
  const planned = items.map((item): PlannedStoryChange | { error: DomainError } => {
    const found = locked.get(item.storyId);
    if (!found) return { error: new DomainError('NotFound', 'Story not found') };
    try {
      return planStoryChange(found, item.changes, item.expectedVersion);
    } catch (error) {
      if (!isCallersError(error)) throw error;
      return { error };
    }
  });
  const writes = planned.filter((p): p is PlannedStoryChange => !('error' in p));
  if (writes.length === 0 || (allOrNothing && writes.length < items.length))
    return planned.map((p) => ('error' in p ? p : { notApplied: true }));
  const updated = await tx.stories.updateMany(
    projectId,
    writes.map((p) => ({ storyId: p.before.id, write: p.write })),
  );
  await tx.history.transitionMany(
    projectId,
    writes.map((p) => ({ storyId: p.before.id, ...p.history })),
    changeAuthor(actorId),
  );
  const events = writes.flatMap((p, i) => {
    const after = updated[i]!;
    const resource = toStoryMessage(after);
    return storyUpdateEvents(p.before, after).map((type) => ({
      projectId,
      storyId: after.id,
      actorId,
      type,
      resource,
    }));
  });
  await publishStoryChanges(tx.outbox, events);
  const byId = new Map(updated.map((story) => [story.id, story]));
  return planned.map((p) => ('error' in p ? p : { story: byId.get(p.before.id)! }));
}

/** What one story's changes come to, decided before anything is written. */
interface PlannedStoryChange {
  before: StoryRecord;
  write: StoryWrite;
  /** The history rows to open: a milestone in the phase moved to, a step of the new status. */
  history: { phaseId?: number; stepType?: StepType };
}

/**
 * The rules of one story's update, on the story as locked: the version first (PreconditionFailed), then the phase
 * move (bottom of the new phase, automatic status), then the status checked against the (new) phase. Moving to
 * the phase the story is in is no move. Throws the caller's error; writes nothing.
 */
function planStoryChange(
  found: LockedStory,
  changes: StoryChanges,
  expectedVersion?: number,
): PlannedStoryChange {
  const { story } = found;
  requireVersion('Story', story.id, story.version, expectedVersion);
  let move: { phaseId: number; position: number; lastPosition: number } | undefined;
  if (changes.phaseId !== undefined && changes.phaseId !== story.phase.id) {
    if (!found.target) {
      throw new DomainError(
        'InvalidArgument',
        `Invalid phase: no phase ${changes.phaseId} in this project.`,
        {
          problem: 'invalid-reference',
        },
      );
    }
    move = { phaseId: found.target.id, position: found.target.position, lastPosition: found.lastPosition };
  }
  const status = nextStatus(
    { status: story.status, blockedReason: story.blockedReason },
    {
      current: { position: found.phasePosition, lastPosition: found.lastPosition },
      move,
      status: changes.status,
      blockedReason: changes.blockedReason,
    },
  );
  const write: StoryWrite = {
    text: changes.text ?? story.text,
    details: changes.details ?? story.details,
    size: changes.size ?? story.size,
    priority: changes.priority ?? story.priority,
    color: changes.color ?? story.color,
    status: status.status,
    blockedReason: status.blockedReason,
    phaseId: move?.phaseId ?? story.phase.id,
    boardPosition: move ? 'bottom' : story.boardPosition,
    ownerId: changes.ownerId === undefined ? story.ownerId : changes.ownerId,
    deadline: changes.deadline === undefined ? story.deadline : changes.deadline,
  };
  const history = {
    ...(move ? { phaseId: move.phaseId } : {}),
    ...(status.status !== story.status ? { stepType: stepTypeForStatus(status.status) } : {}),
  };
  return { before: story, write, history };
}
