import { DomainError } from '@flowboard/service-kit';
import { statusForPhasePosition, stepTypeForStatus } from '../../phases/domain/phases';
import { optionalId, requirePositiveId } from '../../shared/domain/ids';
import { resolveTagRefs } from '../../tags/application/tag-support';
import { parseTagRef } from '../../tags/domain/tags';
import { applyTaskStatus, parseTaskStatus, parseTaskText } from '../../tasks/domain/tasks';
import { parseNewStory, type NewStoryInput } from '../domain/story';
import type { StoryRecord } from './ports';
import type { StoriesStore } from './stories-store';

export interface CreateStoryCommand extends NewStoryInput {
  projectId: number;
  /** 0 = the Backlog phase. */
  phaseId: number;
  /** 0 = unassigned. The gateway has checked that the owner is a member. */
  ownerId: number;
  /** The caller (from call metadata). */
  creatorId: number;
  /** Tasks created with the story, in order (complete ones are finished by the creator). */
  tasks?: ReadonlyArray<{ text: string; status: string }>;
  /** Tags applied with the story: `{id}` or `{name}`; unknown names are created in the same transaction. */
  tags?: ReadonlyArray<{ id: number; name: string }>;
}

export type CreateStory = (command: CreateStoryCommand) => Promise<StoryRecord>;

/**
 * Creates a story at the bottom of its phase (Backlog by default), numbered per project, with its first
 * milestone (the phase) and first step (by status), all in one transaction.
 *
 * The board row is locked first (`allocateStoryId`), so concurrent creates in a project queue up: ids come out
 * 1, 2, 3... without gaps or duplicates, and "bottom of the phase" is computed against committed data. A failed
 * create rolls the counter back with everything else, so ids are only consumed by stories that exist(ed).
 */
export function makeCreateStory(store: StoriesStore): CreateStory {
  return async (command) => {
    const projectId = requirePositiveId('project_id', command.projectId);
    const ownerId = optionalId('owner_id', command.ownerId);
    const creatorId = requirePositiveId('creator', command.creatorId);
    const phaseRef = command.phaseId === 0 ? 'backlog' : requirePhaseId(command.phaseId);
    const fields = parseNewStory(command);
    const now = new Date();
    const tasks = (command.tasks ?? []).map((t) => ({
      text: parseTaskText(t.text),
      ...applyTaskStatus(
        { status: 'incomplete', finishedAt: null, finishedBy: null },
        parseTaskStatus(t.status),
        creatorId,
        now,
      ),
    }));
    const tagRefs = (command.tags ?? []).map((t) => parseTagRef(t));

    return store.transaction(async (tx) => {
      const id = await tx.boards.allocateStoryId(projectId);
      if (id === undefined) throw new DomainError('NotFound', 'Board not found');

      const placement = await tx.phases.findPlacement(projectId, phaseRef);
      if (!placement) {
        if (phaseRef === 'backlog') throw new Error(`board ${projectId} has no phase at position 0`);
        throw new DomainError('InvalidArgument', `Invalid phase: no phase ${phaseRef} in this project.`, {
          problem: 'invalid-reference',
        });
      }
      const status = statusForPhasePosition(placement.phase.position, placement.lastPosition);
      const boardPosition = await tx.stories.nextBoardPosition(projectId, placement.phase.id);

      const story = await tx.stories.insert({
        projectId,
        id,
        ...fields,
        status,
        phaseId: placement.phase.id,
        boardPosition,
        creatorId,
        ownerId,
      });
      await tx.history.openMilestone({
        projectId,
        storyId: id,
        phaseId: placement.phase.id,
        at: story.createdAt,
      });
      await tx.history.openStep({
        projectId,
        storyId: id,
        type: stepTypeForStatus(status),
        at: story.createdAt,
      });
      for (const task of tasks) await tx.tasks.append(projectId, id, task);
      if (tagRefs.length > 0) await tx.tags.link(projectId, id, await resolveTagRefs(tx, projectId, tagRefs));
      return story;
    });
  };
}

function requirePhaseId(phaseId: number): number {
  if (!Number.isSafeInteger(phaseId) || phaseId < 0) {
    throw new DomainError('InvalidArgument', 'Invalid phase: expected a phase id.', {
      problem: 'invalid-reference',
    });
  }
  return phaseId;
}
