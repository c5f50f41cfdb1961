import { DomainError } from '@flowboard/service-kit';
import { statusForPhasePosition, stepTypeForStatus } from '../../phases/domain/phases';
import { noSignal, publishStoryChange, type OutboxSignal } from '../../shared/application/resource-events';
import { optionalId, requirePositiveId } from '../../shared/domain/ids';
import { toTagMessage } from '../../tags/application/tag-message';
import { resolveTagRefs } from '../../tags/application/tag-support';
import { parseTagRef } from '../../tags/domain/tags';
import { toTaskMessage } from '../../tasks/application/task-message';
import { applyTaskStatus, parseTaskStatus, parseTaskText } from '../../tasks/domain/tasks';
import { parseNewStory, type NewStoryInput } from '../domain/story';
import type { StoryRecord } from './ports';
import type { StoriesStore } from './stories-store';
import { toStoryMessage } from './story-message';

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
 *
 * Publishes `story.created`, then `task.created` for each task and `story.tagged` for each tag it was created
 * with: the Story message carries neither, and a subscriber to those types must not miss them. (A delete is
 * only `story.deleted`: its children end with the story's subject.)
 */
export function makeCreateStory(store: StoriesStore, signal: OutboxSignal = noSignal): CreateStory {
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

    const created = await store.boardTransaction(projectId, async (tx) => {
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

      const story = await tx.stories.insert({
        projectId,
        id,
        ...fields,
        status,
        phaseId: placement.phase.id,
        creatorId,
        ownerId,
      });
      await tx.history.open({
        projectId,
        storyId: id,
        phaseId: placement.phase.id,
        stepType: stepTypeForStatus(status),
        at: story.createdAt,
      });
      const change = { projectId, storyId: id, actorId: creatorId };
      await publishStoryChange(tx.outbox, {
        ...change,
        type: 'story.created',
        resource: toStoryMessage(story),
      });
      for (const task of tasks) {
        const record = await tx.tasks.append(projectId, id, task);
        await publishStoryChange(tx.outbox, {
          ...change,
          type: 'task.created',
          resource: toTaskMessage(record),
        });
      }
      if (tagRefs.length > 0) {
        const tags = await resolveTagRefs(tx, projectId, tagRefs);
        await tx.tags.link(
          projectId,
          id,
          tags.map((t) => t.id),
        );
        for (const tag of tags)
          await publishStoryChange(tx.outbox, {
            ...change,
            type: 'story.tagged',
            resource: toTagMessage(tag),
          });
      }
      return story;
    });
    signal();
    return created;
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
