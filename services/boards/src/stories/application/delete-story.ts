import { makeEvent, storyDeletedV1 } from '@flowboard/events';
import { DomainError, parseExpectedVersion, requireVersion } from '@flowboard/service-kit';
import { noSignal, publishStoryChange, type OutboxSignal } from '../../shared/application/resource-events';
import { requirePositiveId } from '../../shared/domain/ids';
import type { StoriesStore } from './stories-store';
import { toStoryMessage } from './story-message';

export interface DeleteStoryCommand {
  projectId: number;
  storyId: number;
  deletedBy: number;
  requestId?: string;
  /** 0 or undefined = unconditional; else the story goes only if it is at this version. */
  expectedVersion?: number;
}

export type DeleteStory = (command: DeleteStoryCommand) => Promise<void>;

/**
 * Deletes a story; its tasks, comments, tag links, milestones and steps go with it (ON DELETE CASCADE). The
 * `boards.story-deleted.v1` event (files deletes the story's attachments) and the webhooks' `story.deleted`
 * (the story as it was; none for its children, whose subject ends with it) are written to the outbox in the
 * same transaction, so they are published exactly when the delete commits. `signal` wakes the outbox relay.
 */
export function makeDeleteStory(store: StoriesStore, signal: OutboxSignal = noSignal): DeleteStory {
  return async ({ projectId: rawProjectId, storyId, deletedBy, requestId, expectedVersion: rawVersion }) => {
    const projectId = requirePositiveId('project_id', rawProjectId);
    const notFound = () => new DomainError('NotFound', 'Story not found');
    if (!Number.isSafeInteger(storyId) || storyId <= 0) throw notFound();
    const expectedVersion = parseExpectedVersion(rawVersion);
    await store.transaction(async (tx) => {
      if (expectedVersion !== undefined) {
        // The row lock holds the version until the delete: a concurrent update waits, or has raised it.
        const found = await tx.stories.findForUpdate(projectId, storyId);
        if (!found) throw notFound();
        requireVersion('Story', storyId, found.story.version, expectedVersion);
      }
      const deleted = await tx.stories.delete(projectId, storyId);
      if (!deleted) throw notFound();
      const event = makeEvent(storyDeletedV1, 'boards', {
        projectId,
        storyId,
        deletedBy,
        deletedAt: new Date().toISOString(),
      });
      await tx.outbox.enqueue({
        id: event.id,
        topic: storyDeletedV1.topic,
        // The project id: a project's story and project events stay in order on one partition.
        key: String(projectId),
        payload: event,
        headers: requestId ? { 'x-request-id': requestId } : {},
      });
      await publishStoryChange(tx.outbox, {
        projectId,
        storyId,
        actorId: deletedBy,
        type: 'story.deleted',
        resource: toStoryMessage(deleted),
      });
    });
    signal();
  };
}
