import { DomainError } from '@flowboard/service-kit';
import type { Store } from '../../board/application/store';
import {
  changeAuthor,
  noSignal,
  publishStoryChange,
  type OutboxSignal,
} from '../../shared/application/resource-events';
import { optionalId, requirePositiveId } from '../../shared/domain/ids';
import { parseNewStory, type NewStoryInput } from '../domain/story';
import { statusForPhasePosition, stepTypeForStatus } from '../domain/story-status';
import type { StoryRecord } from './ports';
import type { StoriesRepositories } from './stories-store';
import { toStoryMessage } from './story-message';

export interface CreateStoryCommand extends NewStoryInput {
  projectId: number;
  /** 0 = the Backlog phase. */
  phaseId: number;
  /** 0 = unassigned. The gateway has checked that the owner is a member. */
  ownerId: number;
  /** The caller (from call metadata). */
  creatorId: number;
  /** Tasks created with the story, in order (complete ones are finished by the creator): tasks/'s part. */
  tasks?: ReadonlyArray<{ text: string; status: string }>;
  /**
   * Tags applied with the story: `{id}` or `{name}`; unknown names are created in the same transaction: tags/'s
   * part.
   */
  tags?: ReadonlyArray<{ id: number; name: string }>;
}

export type CreateStory = (command: CreateStoryCommand) => Promise<StoryRecord>;

/**
 * What a new story is created with besides its own row: its tasks, its tags. Those slices sit above stories, so
 * each gives CreateStory a part of its own (app.ts wires them, in the order their events follow `story.created`).
 * A part checks its fields of the command before any I/O, as the story's own are (its errors are the request's),
 * and answers the write to run in the story's transaction right after the story's row and `story.created`, or
 * undefined when the command gives it nothing. `Tx` is that transaction's repositories: the part's own.
 */
export type NewStoryPart<Tx> = (
  command: CreateStoryCommand,
  creatorId: number,
) => ((tx: Tx, story: StoryRecord) => Promise<void>) | undefined;

/**
 * Creates a story at the bottom of its phase (Backlog by default), numbered per project, with its first
 * milestone (the phase) and first step (by status) and its `parts` (tasks, tags), all in one transaction.
 *
 * The board row is locked first (`allocateStoryId`), so concurrent creates in a project queue up: ids come out
 * 1, 2, 3... without gaps or duplicates, and "bottom of the phase" is computed against committed data. A failed
 * create rolls the counter back with everything else, so ids are only consumed by stories that exist(ed).
 *
 * Publishes `story.created`; then its parts publish `task.created` for each task and `story.tagged` for each tag
 * it was created with: the Story message carries neither, and a subscriber to those types must not miss them. (A
 * delete is only `story.deleted`: its children end with the story's subject.)
 */
export function makeCreateStory<Tx extends StoriesRepositories>(
  store: Store<Tx>,
  signal: OutboxSignal = noSignal,
  parts: ReadonlyArray<NewStoryPart<Tx>> = [],
): CreateStory {
  return async (command) => {
    const prepared = prepareNewStory(command, parts);
    const created = await store.boardTransaction(prepared.projectId, (tx) => writeNewStory(tx, prepared));
    signal();
    return created;
  };
}

/** A create command checked before any I/O, with its parts' writes: what `writeNewStory` writes. */
export interface PreparedStory<Tx> {
  projectId: number;
  ownerId: number | null;
  creatorId: number;
  phaseRef: number | 'backlog';
  fields: ReturnType<typeof parseNewStory>;
  partWrites: Array<(tx: Tx, story: StoryRecord) => Promise<void>>;
}

/** Checks a create command (its own fields and its parts'); throws the request's error before any I/O. */
export function prepareNewStory<Tx>(
  command: CreateStoryCommand,
  parts: ReadonlyArray<NewStoryPart<Tx>>,
): PreparedStory<Tx> {
  const projectId = requirePositiveId('project_id', command.projectId);
  const ownerId = optionalId('owner_id', command.ownerId);
  const creatorId = requirePositiveId('creator', command.creatorId);
  const phaseRef = command.phaseId === 0 ? 'backlog' : requirePhaseId(command.phaseId);
  const fields = parseNewStory(command);
  const partWrites = parts.map((part) => part(command, creatorId)).filter((write) => write !== undefined);
  return { projectId, ownerId, creatorId, phaseRef, fields, partWrites };
}

/**
 * Writes a prepared story in a transaction that may not hold the board's lock yet (`allocateStoryId` takes it):
 * the story row, its first milestone and step, `story.created`, then its parts.
 */
export async function writeNewStory<Tx extends StoriesRepositories>(
  tx: Tx,
  prepared: PreparedStory<Tx>,
): Promise<StoryRecord> {
  const { projectId, creatorId, phaseRef } = prepared;
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
    ...prepared.fields,
    status,
    phaseId: placement.phase.id,
    creatorId,
    ownerId: prepared.ownerId,
  });
  await tx.history.open({
    projectId,
    storyId: id,
    phaseId: placement.phase.id,
    stepType: stepTypeForStatus(status),
    at: story.createdAt,
    author: changeAuthor(creatorId),
  });
  await publishStoryChange(tx.outbox, {
    projectId,
    storyId: id,
    actorId: creatorId,
    type: 'story.created',
    resource: toStoryMessage(story),
  });
  for (const write of prepared.partWrites) await write(tx, story);
  return story;
}

function requirePhaseId(phaseId: number): number {
  if (!Number.isSafeInteger(phaseId) || phaseId < 0) {
    throw new DomainError('InvalidArgument', 'Invalid phase: expected a phase id.', {
      problem: 'invalid-reference',
    });
  }
  return phaseId;
}
