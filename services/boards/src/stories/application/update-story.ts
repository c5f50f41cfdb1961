import { DomainError, parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import {
  changeAuthor,
  noSignal,
  publishStoryChange,
  type OutboxSignal,
} from '../../shared/application/resource-events';
import { requirePositiveId } from '../../shared/domain/ids';
import { parseStoryChanges, type StoryChanges, type StoryUpdate } from '../domain/story';
import { storyUpdateEvents } from '../domain/story-events';
import { nextStatus, stepTypeForStatus } from '../domain/story-status';
import type { StoryRecord, StoryWrite } from './ports';
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
  const { story } = found;
  requireVersion('Story', story.id, story.version, expectedVersion);
  const previousStatus = story.status;

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
  const updated = await tx.stories.update(projectId, storyId, write);
  await tx.history.transition({
    projectId,
    storyId,
    phaseId: move?.phaseId,
    stepType: status.status !== previousStatus ? stepTypeForStatus(status.status) : undefined,
    author: changeAuthor(actorId),
  });
  const resource = toStoryMessage(updated);
  for (const type of storyUpdateEvents(story, updated))
    await publishStoryChange(tx.outbox, { projectId, storyId, actorId, type, resource });
  return updated;
}
